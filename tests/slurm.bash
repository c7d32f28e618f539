# A one-node Slurm cluster on this machine, for slurm.bats: munged,
# slurmctld and slurmd started as root in the foreground (so that $! is
# the daemon), every file under one directory, two GRES gpus backed by
# plain files. slurm_start DIR, then slurm_stop DIR stops them by pid.

# Why the cluster cannot be started here, or nothing: slurm_why_not
slurm_why_not() {
	local p
	[ "$(id -u)" -eq 0 ] || { echo "not root: munged, slurmctld and slurmd run as root"; return; }
	for p in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
		PATH=$PATH:/usr/sbin command -v "$p" >/dev/null ||
			{ echo "$p not found (apt-get install slurm-wlm munge)"; return; }
	done
}

# Two free TCP ports on loopback: free_ports
free_ports() {
	local p n=0 base=$((20000 + ($$ * 7) % 30000))
	for p in $(seq "$base" $((base + 200))); do
		if ! ss -Htln "sport = :$p" | grep -q .; then
			echo "$p"
			n=$((n + 1))
			[ $n -eq 2 ] && return 0
		fi
	done
	return 1
}

# The configuration: slurm_config DIR CPUS
slurm_config() {
	local d=$1 cpus=$2 host ports
	host=$(hostname -s)
	ports=($(free_ports)) || return 1
	mkdir -p "$d/state" "$d/spool" "$d/munge"
	chmod 700 "$d/munge"
	# Slurm takes only devices for GPUs: two links to /dev/null.
	ln -s /dev/null "$d/nvidia0" && ln -s /dev/null "$d/nvidia1" || return 1
	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 status=none
	chmod 400 "$d/munge/munge.key"
	cat >"$d/slurm.conf" <<-EOF
	ClusterName=kftest
	SlurmctldHost=$host(127.0.0.1)
	SlurmUser=root
	SlurmdUser=root
	SlurmctldPort=${ports[0]}
	SlurmdPort=${ports[1]}
	AuthType=auth/munge
	CredType=cred/munge
	AuthInfo=socket=$d/munge/socket
	StateSaveLocation=$d/state
	SlurmdSpoolDir=$d/spool
	SlurmctldPidFile=$d/slurmctld.pid
	SlurmdPidFile=$d/slurmd.pid
	SlurmctldLogFile=$d/slurmctld.log
	SlurmdLogFile=$d/slurmd.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	SelectType=select/cons_tres
	SelectTypeParameters=CR_CPU
	SchedulerType=sched/builtin
	SchedulerParameters=sched_interval=1
	GresTypes=gpu
	ReturnToService=2
	MpiDefault=none
	JobCompType=jobcomp/none
	AccountingStorageType=accounting_storage/none
	JobAcctGatherType=jobacct_gather/none
	SwitchType=switch/none
	MessageTimeout=5
	InactiveLimit=0
	KillWait=2
	MinJobAge=300
	NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus Gres=gpu:2 State=UNKNOWN
	PartitionName=kf Nodes=$host Default=YES MaxTime=INFINITE State=UP
	EOF
	cat >"$d/gres.conf" <<-EOF
	NodeName=$host Name=gpu File=$d/nvidia0
	NodeName=$host Name=gpu File=$d/nvidia1
	EOF
}

# slurm_start DIR: configure and start the daemons; their pids in DIR/pids.
slurm_start() {
	local d=$1 i
	slurm_config "$d" "$(nproc)" || return 1
	export SLURM_CONF=$d/slurm.conf
	: >"$d/pids"
	/usr/sbin/munged -F --force --socket="$d/munge/socket" --key-file="$d/munge/munge.key" \
		--pid-file="$d/munge/pid" --log-file="$d/munge/log" --seed-file="$d/munge/seed" \
		</dev/null >>"$d/munge/log" 2>&1 3>&- &
	echo $! >>"$d/pids"
	for i in $(seq 50); do [ -S "$d/munge/socket" ] && break; sleep 0.1; done
	/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" </dev/null >>"$d/slurmctld.out" 2>&1 3>&- &
	echo $! >>"$d/pids"
	/usr/sbin/slurmd -D -f "$SLURM_CONF" </dev/null >>"$d/slurmd.out" 2>&1 3>&- &
	echo $! >>"$d/pids"
	for i in $(seq 100); do
		sinfo -h -o %t 2>/dev/null | grep -qx 'idle' && return 0
		sleep 0.2
	done
	echo "the one-node cluster did not come up: see $d/*.log" >&2
	return 1
}

# alive PID: the process runs (a zombie does not). /proc, not ps: procps
# may be missing.
alive() {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) && [ "${s%% *}" != Z ]
}

# slurm_stop DIR: cancel what still runs, stop what slurm_start started, by
# pid, and wait for it.
slurm_stop() {
	local d=$1 p i
	[ -r "$d/pids" ] || return 0
	scancel --quiet --user=root 2>/dev/null
	for i in $(seq 50); do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
		sleep 0.1
	done
	for p in $(tac "$d/pids"); do
		kill "$p" 2>/dev/null || continue
		for i in $(seq 50); do
			alive "$p" || break
			sleep 0.1
		done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -f "$d/pids"
}
