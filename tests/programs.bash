# For the tables that run every program alike (hostile.bats, output.bats):
# a good input line for each program and the command that runs it. $T is
# the test's scratch directory, holding ncu/ncu_report.csv.

PROGS="kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report"
JOB='{"id":"a","cmd":["./x"],"language":"cuda","arch":"H200"}'

good_input() {
	case $1 in
	kf-select) echo "$JOB" ;;
	kf-wrap) echo "$JOB" | kf-select ;;
	kf-run) echo '{"id":"a","argv":["echo","hello"]}' ;;
	kf-read) replay a ncu "$T/ncu" ;;
	kf-collate) replay a ncu "$T/ncu" | kf-read ;;
	kf-feedback) replay a ncu "$T/ncu" | kf-read | kf-collate ;;
	kf-report) replay a ncu "$T/ncu" | kf-read | kf-collate | kf-feedback ;;
	esac
}

prog_cmd() {
	case $1 in
	kf-wrap) echo "kf-wrap -o $T/out" ;;
	kf-run) echo "kf-run -k -q -t 20" ;;
	*) echo "$1" ;;
	esac
}
