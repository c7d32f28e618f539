# Bash completion for kf and its programs (kf-select, kf-wrap, kf-run,
# kf-read, kf-collate, kf-feedback, kf-report, kf-mcp). Each program says what it
# accepts with its hidden option --complete (lib/core/opt.h): its options,
# the values of each (GPU names, profilers, languages, --focus's, ncu's
# --set, ...), the PROFILER and FILE operands, and what it takes after
# PROFILER; kf, which hands everything from PROFILER on to kf-wrap, also
# asks kf-wrap. After "--", the command and its files.
# Installed under share/bash-completion/completions/, one name per program.

# _kf_where LINES WHERE...: the lines of a program's --complete whose WHERE
# is one of those given, without it: NAME<TAB>KIND[<TAB>VALUE].
_kf_where() {
	local lines=$1 w line
	shift
	while IFS= read -r line; do
		for w; do
			[[ ${line%%$'\t'*} == "$w" ]] && printf '%s\n' "${line#*$'\t'}"
		done
	done <<<"$lines"
}

# _kf_takes SPEC NAME: whether option NAME takes a value.
_kf_takes() {
	local n k v
	while IFS=$'\t' read -r n k v; do
		[[ $n == "$2" && $k != flag && $k != word ]] && return 0
	done <<<"$1"
	return 1
}

# _kf_reply CUR WORD...: the words that start with CUR, quoted for the shell.
_kf_reply() {
	local cur=$1 w
	shift
	COMPREPLY=()
	for w; do
		[[ $w == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$w")")
	done
}

# _kf_values SPEC NAME CUR: complete the value of option NAME from SPEC;
# 1 when SPEC does not know NAME or it takes no value.
_kf_values() {
	local spec=$1 name=$2 cur=$3 kind= n k v
	local -a words=()
	while IFS=$'\t' read -r n k v; do
		[[ $n == "$name" ]] || continue
		if [[ $k == word ]]; then words+=("$v"); else kind=$k; fi
	done <<<"$spec"
	case $kind in
	dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
	file) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	command) mapfile -t COMPREPLY < <(compgen -c -- "$cur") ;;
	words) _kf_reply "$cur" "${words[@]}" ;;
	value) COMPREPLY=() ;;		# a number, a name: nothing to offer
	*) return 1 ;;
	esac
	return 0
}

_kf() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd=${COMP_WORDS[0]} i w profiler= lines before spec
	local -a names=() profilers=()
	COMPREPLY=()
	# --opt=VALUE, as bash splits it at "="
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
	lines=$("$cmd" --complete 2>/dev/null)
	before=$(_kf_where "$lines" -)
	mapfile -t profilers < <(printf '%s\n' "$before" | sed -n 's/^PROFILER\tword\t//p')
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
		# the PROFILER operand: a profiler's name that is no option's value
		if [[ -z $profiler && " ${profilers[*]} " == *" $w "* ]] &&
			! _kf_takes "$before" "${COMP_WORDS[i - 1]}"; then
			profiler=$w
		fi
	done
	if [[ -z $profiler ]]; then
		spec=$before
	else
		spec=$(_kf_where "$lines" + "$profiler")
		# kf hands the words from PROFILER on to kf-wrap (not reread's)
		[[ ${cmd##*/} == kf && $profiler != reread ]] &&
			spec+=$'\n'$(_kf_where "$("${cmd%kf}kf-wrap" --complete 2>/dev/null)" + "$profiler")
	fi
	if [[ $prev == -* ]] && _kf_values "$spec" "$prev" "$cur"; then
		return 0
	fi
	if [[ $cur == -* ]]; then
		mapfile -t names < <(printf '%s\n' "$spec" | cut -f1 | grep -- '^-' | sort -u)
		_kf_reply "$cur" "${names[@]}"
		return 0
	fi
	# kf reread PATH ...: saved profiles, files and folders
	if [[ $profiler == reread ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return 0
	fi
	[[ -n $profiler ]] && return 0		# a bare word goes after "--"
	_kf_values "$spec" PROFILER "$cur"
	if printf '%s\n' "$spec" | grep -qx 'FILE	file'; then
		mapfile -t -O ${#COMPREPLY[@]} COMPREPLY < <(compgen -f -- "$cur")
	fi
	return 0
}

complete -F _kf kf kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report kf-mcp
