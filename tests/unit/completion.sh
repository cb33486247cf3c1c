#!/bin/sh
# The bash completion of contrib/bash-completion/fabroute, sourced in bash
# with the fabroute under test first in PATH: commands, each command's
# options (read from its --help), engine names (from `fabroute engines
# --json`, also after a comma in a chain), families and their parameters
# (from `fabroute gen --list`), and option values.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib.sh"
need bash jq

COMP=$top_srcdir/contrib/bash-completion/fabroute
PATH=$(dirname "$FABROUTE"):$PATH
export PATH

# comp WORD...: the completions bash offers for the last WORD, sorted, on one line
comp() {
	bash -c '. "$1" || exit 1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _fabroute
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP" "$@" 2>>"$t_tmp/comp.err" | LC_ALL=C sort | tr '\n' ' ' |
		sed 's/ $//'
}

runs "the completion file is valid bash" 0 bash -n "$COMP"
like "it registers _fabroute for fabroute" "$(cat "$COMP")" "^complete -F _fabroute fabroute$"
all=$(comp fabroute "")
for c in gen eval compute engines status route lft links nodes config fault help; do
	like "fabroute <TAB> offers $c" "$all" "(^| )$c( |$)"
done
is "fabroute st<TAB>" "$(comp fabroute st)" status
is "fabroute l<TAB>" "$(comp fabroute l)" "lft lids links"
is "fabroute lft --<TAB>: the common options of the daemon commands" "$(comp fabroute lft --)" \
	"--help --json --token-file --url"
is "fabroute reroute --<TAB>" "$(comp fabroute reroute --w)" --wait
is "fabroute hosts --format <TAB>" "$(comp fabroute hosts --format '')" "env json text ucx"
is "fabroute topology --format <TAB>" "$(comp fabroute topology --format '')" "slurm-block slurm-tree"
is "fabroute whatif --repair <TAB>" "$(comp fabroute whatif --repair '')" "ftdlr none"
is "fabroute gen kary-ntree --link-<TAB>" "$(comp fabroute gen kary-ntree --link-)" --link-faults
is "fabroute compute -<TAB> takes short options too" "$(comp fabroute compute -O)" -O
is "fabroute compute -e sf<TAB>: an engine name" "$(comp fabroute compute -e sf)" sftree
is "fabroute compute --engine sftree,up<TAB>: after a comma" "$(comp fabroute compute --engine sftree,up)" \
	sftree,updn
is "fabroute engine mi<TAB>: the chain argument" "$(comp fabroute engine mi)" minhop
like "every engine 'fabroute engines' lists" "$(comp fabroute compute -e '')" \
	"^$("$FABROUTE" engines --json | jq -r '.[].name' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')$"
is "fabroute gen kar<TAB>: a family" "$(comp fabroute gen kar)" kary-ntree
is "fabroute gen -o x.net kary-ntree <TAB>: its parameters" "$(comp fabroute gen -o x.net kary-ntree '')" \
	"k= lmc= n="
is "fabroute gen --format <TAB>" "$(comp fabroute gen --format '')" "ibnetdiscover ibsim"
is "fabroute route --format <TAB>" "$(comp fabroute route --format '')" "ibtracert text"
is "fabroute nodes --type <TAB>" "$(comp fabroute nodes --type '')" "ca rt sw"
is "fabroute eval --metrics conn,l<TAB>" "$(comp fabroute eval --metrics conn,l)" conn,load
is "fabroute fault <TAB>" "$(comp fabroute fault '')" "down up"
is "fabroute help lf<TAB>" "$(comp fabroute help lf)" lft
mkdir "$t_tmp/dir" && : >"$t_tmp/dir/topo.ibnd"
is "fabroute eval --topology <TAB>: files" "$(comp fabroute eval --topology "$t_tmp/dir/to")" "$t_tmp/dir/topo.ibnd"
is "no errors from bash" "$(cat "$t_tmp/comp.err")" ""
done_testing
