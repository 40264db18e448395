# bash completion for stackbench. Commands and options are read from the tool's own help, so
# they are always those of the installed version.
_stackbench()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--log-level) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	--db | -d | --out | -o | --output | --json | --csv | --plots | --trace | --devices | --socket | --state-dir | --snapshot | --into)
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--log-level)
		COMPREPLY=($(compgen -W "none error warn info debug trace" -- "$cur"))
		return
		;;
	--format | -f)
		if [ "$cmd" = export ]; then
			COMPREPLY=($(compgen -W "csv json" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "scalesim gpgpusim csv sbt" -- "$cur"))
		fi
		return
		;;
	esac
	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" --help 2>/dev/null |
				grep -oE -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" --help 2>/dev/null |
				awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 } f && /^$/ { exit }') help" -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
			grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -F _stackbench stackbench
