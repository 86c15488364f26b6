# bash completion for fastpath(8). Objects and verbs come from the binary's
# own help (so they follow what it has built in); interfaces from
# `fastpath -j status` (those with fastpath loaded; for `filter load`, every
# interface); rule ids from `fastpath -j filter list IFACE`; stage names
# (pipeline enable|disable) from `fastpath -j pipeline show IFACE`; bridges
# and their ports from `fastpath -j bridge show [NAME]`.
#   install: /usr/share/bash-completion/completions/fastpath (make install),
#   or `source completion/fastpath.bash`

_fastpath_json_field() { # FIELD: the values of FIELD in a JSON array on stdin
	sed -n 's/"'"$1"'":"\([^"]*\)"/\n\1\n/gp' | sed -n '/^[^{[,]/p' | grep -v '^[]}]'
}

_fastpath() {
	local cur prev words cword
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD
	}
	local fp=${words[0]} i obj= verb= nobj=0 args=() bpffs=()
	# global options, and where the object and the verb are
	for (( i = 1; i < cword; i++ )); do
		case ${words[i]} in
		--bpffs) bpffs=(--bpffs "${words[i+1]}"); (( i++ )); continue ;;
		--mode|--table-bits|--share|--addr|--conns|--src4|--src6|--hash|--table-size|--weight|--ageing|--address|--pvid|--vlans|--flood-limit|--learn-limit) (( i++ )); continue ;; # and their values
		-*) continue ;;
		esac
		if [[ -z $obj ]]; then obj=${words[i]}; nobj=$i
		elif [[ -z $verb ]]; then verb=${words[i]}
		else args+=("${words[i]}")
		fi
	done
	if [[ $prev == --bpffs ]]; then
		COMPREPLY=($(compgen -d -- "$cur")); return
	fi
	if [[ $prev == --mode ]]; then
		COMPREPLY=($(compgen -W 'native skb' -- "$cur")); return
	fi
	if [[ -z $obj ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-j --json -p --pretty --bpffs -v --verbose -h --help -V --version' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$fp" help 2>/dev/null |
				sed -n 's/.*OBJECT := { \(.*\) }.*/\1/p' | tr -d '|') help" -- "$cur"))
		fi
		return
	fi
	local loaded all
	loaded() { "$fp" "${bpffs[@]}" -j status 2>/dev/null | _fastpath_json_field iface; }
	all() { ls /sys/class/net 2>/dev/null; }
	case $obj in
	pipeline)
		if [[ -z $verb ]]; then
			COMPREPLY=($(compgen -W "$("$fp" "$obj" help 2>/dev/null |
				sed -n '1s/.*{ \(.*\) }.*/\1/p' | tr -d '|')" -- "$cur"))
			return
		fi
		case $verb in
		load) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--mode --bpffs' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(all)" -- "$cur")); fi ;;
		unload) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--force' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")); fi ;;
		enable|disable) if [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur"))
			elif [[ ${#args[@]} == 1 ]]; then
				# the stages of the binary's table, as show lists them
				COMPREPLY=($(compgen -W "$("$fp" "${bpffs[@]}" -j pipeline show "${args[0]}" \
					2>/dev/null | _fastpath_json_field stage)" -- "$cur")); fi ;;
		*) [[ ${#args[@]} == 0 ]] && COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")) ;;
		esac ;;
	filter|rules)
		if [[ -z $verb ]]; then
			COMPREPLY=($(compgen -W "$("$fp" "$obj" help 2>/dev/null |
				sed -n '1s/.*{ \(.*\) }.*/\1/p' | tr -d '|')" -- "$cur"))
			return
		fi
		case $verb in
		load) [[ ${#args[@]} == 0 ]] && COMPREPLY=($(compgen -W "$(all)" -- "$cur")) ||
			COMPREPLY=($(compgen -f -- "$cur"))
			[[ $cur == -* ]] && COMPREPLY=($(compgen -W '--mode --table-bits --share' -- "$cur")) ;;
		apply) if [[ $cur == -* ]]; then
				COMPREPLY=($(compgen -W '--dry-run --load --mode --table-bits --share' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then
				COMPREPLY=($(compgen -W "$(loaded)" -- "$cur"))
				[[ " ${words[*]} " == *" --load "* ]] && COMPREPLY=($(compgen -W "$(all)" -- "$cur"))
			else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
		del) if [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur"))
			else COMPREPLY=($(compgen -W "$("$fp" "${bpffs[@]}" -j filter list "${args[0]}" 2>/dev/null |
				_fastpath_json_field id)" -- "$cur")); fi ;;
		save|test|check) [[ ${#args[@]} == 0 && $verb == save ]] &&
			COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")) || COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) [[ ${#args[@]} == 0 ]] && COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")) ;;
		esac ;;
	lb)
		if [[ -z $verb ]]; then
			COMPREPLY=($(compgen -W "$("$fp" "$obj" help 2>/dev/null |
				sed -n '1s/.*{ \(.*\) }.*/\1/p' | tr -d '|')" -- "$cur"))
			return
		fi
		# VIPs and backends from `fastpath -j lb list IFACE`
		# (not _fastpath_json_field: an IPv6 VIP starts with '[')
		lbl() { "$fp" "${bpffs[@]}" -j lb list "$1" 2>/dev/null | grep -o "\"$2\":\"[^\"]*\"" |
			sed 's/^"[a-z]*":"//; s/"$//' | sort -u; }
		case $verb in
		load) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--mode --conns --src4 --src6' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(all)" -- "$cur")); fi ;;
		vip) if [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W 'add del' -- "$cur"))
			elif [[ $cur == -* && ${args[0]} == add ]]; then
				COMPREPLY=($(compgen -W '--hash --port-any --table-size' -- "$cur"))
			elif [[ ${#args[@]} == 1 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur"))
			elif [[ ${#args[@]} == 2 && ${args[0]} == del ]]; then
				COMPREPLY=($(compgen -W "$(lbl "${args[1]}" vip)" -- "$cur")); fi ;;
		backend) if [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W 'add del drain down up' -- "$cur"))
			elif [[ $cur == -* && ${args[0]} == add ]]; then COMPREPLY=($(compgen -W '--weight' -- "$cur"))
			elif [[ ${#args[@]} == 1 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur"))
			elif [[ ${#args[@]} == 2 ]]; then COMPREPLY=($(compgen -W "$(lbl "${args[1]}" vip)" -- "$cur"))
			elif [[ ${#args[@]} == 3 && ${args[0]} != add ]]; then
				COMPREPLY=($(compgen -W "$(lbl "${args[1]}" backend)" -- "$cur")); fi ;;
		health) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--interval --rise --fall --timeout --port --http --expect --direct --count' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")); fi ;;
		stats) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--watch --count' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")); fi ;;
		apply|save) if [[ $cur == -* && $verb == apply ]]; then COMPREPLY=($(compgen -W '--dry-run --load --mode' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$( [[ $verb == apply ]] && all || loaded)" -- "$cur"))
			else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
		*) [[ ${#args[@]} == 0 ]] && COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")) ;;
		esac ;;
	bridge)
		if [[ -z $verb ]]; then
			COMPREPLY=($(compgen -W "$("$fp" "$obj" help 2>/dev/null |
				sed -n '1s/.*{ \(.*\) }.*/\1/p' | tr -d '|')" -- "$cur"))
			return
		fi
		local bridges
		bridges=$("$fp" "${bpffs[@]}" -j bridge show 2>/dev/null | _fastpath_json_field bridge)
		[[ $verb == fdb && ${#args[@]} == 0 ]] && bridges+=" add del"
		[[ $verb == fdb && ( ${args[0]:-} == add || ${args[0]:-} == del ) ]] && args=("${args[@]:1}")
		if [[ ${#args[@]} == 0 && $verb != create ]]; then
			COMPREPLY=($(compgen -W "$bridges" -- "$cur"))
		elif [[ ${#args[@]} == 1 && ( $verb == apply || $verb == save ) ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		elif [[ ${#args[@]} == 1 && ( $verb == add || $verb == del ) ]]; then
			COMPREPLY=($(compgen -W "$( [[ $verb == add ]] && all || "$fp" "${bpffs[@]}" -j bridge show "${args[0]}" 2>/dev/null | _fastpath_json_field port)" -- "$cur"))
		elif [[ $cur == -* ]]; then
			case $verb in
			create) COMPREPLY=($(compgen -W '--ageing --vlan-aware --address' -- "$cur")) ;;
			add) COMPREPLY=($(compgen -W '--pvid --vlans --tagged --untagged --flood-limit --learn-limit --mode' -- "$cur")) ;;
			stats) COMPREPLY=($(compgen -W '--watch' -- "$cur")) ;;
			apply) COMPREPLY=($(compgen -W '--dry-run' -- "$cur")) ;;
			esac
		fi ;;
	decap)
		if [[ -z $verb ]]; then
			COMPREPLY=($(compgen -W "$("$fp" "$obj" help 2>/dev/null |
				sed -n '1s/.*{ \(.*\) }.*/\1/p' | tr -d '|')" -- "$cur"))
			return
		fi
		case $verb in
		load) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--addr --mode --bpffs' -- "$cur"))
			elif [[ $prev != --addr && ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(all)" -- "$cur")); fi ;;
		stats) if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '--watch -j' -- "$cur"))
			elif [[ ${#args[@]} == 0 ]]; then COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")); fi ;;
		*) [[ ${#args[@]} == 0 ]] && COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")) ;;
		esac ;;
	dump|stats|gen|capture|inject|forward)
		[[ ${#args[@]} == 0 && -z $verb ]] && COMPREPLY=($(compgen -W "$( [[ $obj == gen || $obj == capture || $obj == inject || $obj == forward ]] && all || loaded)" -- "$cur")) ;;
	status)
		COMPREPLY=($(compgen -W "$(loaded)" -- "$cur")) ;;
	proxy)
		if [[ -z $verb ]]; then
			COMPREPLY=($(compgen -W "$("$fp" proxy help 2>/dev/null |
				sed -n '1s/.*{ \(.*\) }.*/\1/p' | tr -d '|')" -- "$cur"))
		elif [[ $cur == -* ]]; then
			case $verb in
			run) COMPREPLY=($(compgen -W '--listen --backend --policy --control --max-conns --header-timeout --access-log --cookie-key --transparent --body-timeout' -- "$cur")) ;;
			reload) COMPREPLY=($(compgen -W '--control' -- "$cur")) ;;
			stats) COMPREPLY=($(compgen -W '--control --watch' -- "$cur")) ;;
			esac
		else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
	esac
}
complete -F _fastpath fastpath
