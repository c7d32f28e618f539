# Bash completion for kf and its programs (kf-select, kf-wrap, kf-run,
# kf-read, kf-collate, kf-feedback, kf-report): their options, read from
# each program's --help so that they are never out of date; profiler names;
# languages;
# directories and files where an option takes one; after "--", the command.
# Installed under share/bash-completion/completions/, one name per program.

_kf_profilers="ncu unitrace vtune"
_kf_languages="sycl ocl cuda pytorch triton"

# The value an option takes, as its --help names it (DIR, FILE, S, ...).
_kf_metavar() {
	"$1" --help 2>/dev/null |
		sed -nE "s/^.*(^|[ ,])$2(, --?[a-zA-Z-]+)?[ =]([A-Z][A-Z_]*)( .*|,.*)?$/\3/p" | head -n 1
}

_kf_options() {
	"$1" --help 2>/dev/null | grep -oE -- '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,' | sort -u
}

_kf() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd=${COMP_WORDS[0]} i w profiler= meta
	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ $w == -- ]]; then
			if ((i == COMP_CWORD - 1)); then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return 0
		fi
		[[ " $_kf_profilers " == *" $w "* ]] && profiler=$w
	done
	if [[ $prev == --profiler ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$_kf_profilers" -- "$cur")
		return 0
	fi
	if [[ $prev == -* ]]; then
		meta=$(_kf_metavar "$cmd" "$prev")
		case $meta in
		DIR) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
		FILE | PATH) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
		LANG) mapfile -t COMPREPLY < <(compgen -W "$_kf_languages" -- "$cur"); return 0 ;;
		PROFILER) mapfile -t COMPREPLY < <(compgen -W "$_kf_profilers" -- "$cur"); return 0 ;;
		?*) return 0 ;;		# a number, a name: nothing to offer
		esac
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_kf_options "$cmd")" -- "$cur")
		return 0
	fi
	case ${cmd##*/} in
	kf)
		[[ -z $profiler ]] && mapfile -t COMPREPLY < <(compgen -W "$_kf_profilers" -- "$cur")
		return 0 ;;
	kf-wrap)
		if [[ -z $profiler ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$_kf_profilers" -- "$cur"; compgen -f -- "$cur")
			return 0
		fi ;;
	esac
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	return 0
}

complete -F _kf kf kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report
