#!/bin/sh
# The command line of every fabroute command, the offline ones and those
# that ask the daemon: an unknown option exits 2 and names the option
# (without reaching any daemon), every command has --help; and fabroute(1)
# cannot drift from the code: the commands `fabroute --help` lists are
# exactly the man page's command sections, each in the synopsis, and every
# long option a command's --help shows is in that command's section of the
# man page (the daemon commands' common options in their preamble).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"

F=$FABROUTE
MAN=$top_srcdir/doc/fabroute.1
dead=http://127.0.0.1:1

runs "--help" 0 "$F" --help
cmds=$(printf '%s\n' "$out" | sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p')
[ "$(printf '%s\n' "$cmds" | wc -l)" -ge 20 ] && ok "--help lists the commands ($(echo $cmds))" ||
	not_ok "--help lists the commands ($(echo $cmds))"
man_cmds=$(sed -n '/^\.SH COMMANDS/,/^\.SH LID OPTIONS/s/^\.SS \([a-z]*\).*/\1/p' "$MAN")
is "fabroute(1) has a section for every command of --help, and no other" \
	"$(printf '%s\n' "$man_cmds" | LC_ALL=C sort)" "$(printf '%s\n' "$cmds" | LC_ALL=C sort)"

# the section of command $1 in the man page
section() { awk -v c="$1" '/^\.S[HS] / { on = ($1 == ".SS" && $2 == c) } on' "$MAN"; }
# the preamble of DAEMON COMMANDS: the options every daemon command takes
common=$(awk '/^\.SH DAEMON COMMANDS/ { on = 1; next } /^\.S[HS] / { on = 0 } on' "$MAN")
# man's spelling of an option: \-\-renew\-lids
manopt() { printf '%s' "$1" | sed 's/-/\\-/g'; }

for c in $cmds; do
	grep -q "^\.B fabroute $c\$" "$MAN" && ok "$c: in the synopsis" || not_ok "$c: in the synopsis"
	runs "$c --help exits 0" 0 "$F" $c --help
	[ "$c" = help ] && continue
	like "$c --help shows its usage" "$out" "^Usage: fabroute $c"
	case $out in *"Options common to the commands that talk to fabrouted"*) daemon=1 ;; *) daemon=0 ;; esac
	missing=
	for o in $(printf '%s\n' "$out" | grep -o -- '--[a-z][a-z0-9-]*' | LC_ALL=C sort -u); do
		[ "$o" = --help ] && continue
		m=$(manopt "$o")
		section "$c" | grep -qF -- "$m" && continue
		[ $daemon = 1 ] && printf '%s\n' "$common" | grep -qF -- "$m" && continue
		missing="$missing $o"
	done
	is "$c: every option of its --help is in its section of fabroute(1)" "${missing# }" ""

	runs "$c --no-such-option exits 2" 2 "$F" $c --no-such-option --url $dead
	like "$c: the message names the option" "$err" "'--no-such-option'"
	runs "$c -Z exits 2" 2 "$F" $c -Z --url $dead
done

# unknown options after the arguments a command takes, and before a command
runs "gen FAMILY --no-such-option" 2 "$F" gen kary-ntree --no-such-option
runs "show FILE --no-such-option" 2 "$F" show - --no-such-option
runs "route SRC DST --no-such-option" 2 "$F" route a b --no-such-option --url $dead
runs "lft SWITCH --no-such-option" 2 "$F" lft leaf-00 --no-such-option --url $dead
runs "engines --json --no-such-option" 2 "$F" engines --json --no-such-option
runs "engines with an argument" 2 "$F" engines extra
runs "fabroute --no-such-option" 2 "$F" --no-such-option
runs "help with two commands" 2 "$F" help gen show
runs "an option's value missing" 2 "$F" nodes --type
like "says it needs a value" "$err" "option '--type' needs a value"
done_testing
