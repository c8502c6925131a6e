#!/bin/bash
# Description: an option two engines share has the same type, choices, range and default in each (fio --enghelp)
# Tier: quick
# Timeout: 120
# In full: for every option name that more than one engine's `fio --enghelp=<engine>.so` lists, the
# installed fio shows the same type, the same choices with the same help, the same range and the
# same default for it in every engine: the InnoDB/WAL options of redolog and txn are one declaration
# (engines/redolog/redolog_opts.h), so a user who moves a job from one engine to the other meets the
# same option. The oracle is fio's own --enghelp; nothing here reads dbfio's option tables.
. "$(dirname "$0")/lib.sh"
# Same name, another option, each with its reason (ENGINE OPTION FIELD):
# - rbdsnap's clientname/pool/rbdname are fio's rbd engine's (engines/rbd.c: no default), where the
#   store layer's name an rbd store with defaults (admin, rbd, dbfio-store).
# - metastorm's flavor names whose DDL is replayed (its choices' help says what each one creates;
#   mysql when not given), not the log model the redolog and txn engines share.
EXEMPT="rbdsnap clientname default
rbdsnap pool default
rbdsnap rbdname default
metastorm flavor choices
metastorm flavor default"

sos=()
for so in "$B"/*.so; do
	[ "$(basename "$so")" = libdbfio.so ] && continue	# the store layer, not an engine
	sos+=("$so")
done
[ ${#sos[@]} -ge 2 ] || skip "fewer than two engines in $B (run make)"

# field TEXT NAME: one field of `fio --enghelp=SO,OPTION` (choices: the "valid values" lines)
field() {
	case $2 in
	choices) sed -n '/^ *valid values:/,$p' <<<"$1" | sed 's/^ *\(valid values\)\{0,1\}: *//' ;;
	*) sed -n "s/^ *$2: //p" <<<"$1" ;;
	esac
}
exempt() { grep -qx "$1 $2 $3" <<<"$EXEMPT"; }

mkdir -p "$TMP/h"
for so in "${sos[@]}"; do
	e=$(basename "$so" .so)
	"$FIO" --enghelp="$so" >"$TMP/$e.list" 2>&1 || { cat "$TMP/$e.list"; fail "$e: fio --enghelp failed"; }
	sed -n 's/^\([a-z_0-9]*\) *: .*/\1/p' "$TMP/$e.list" | sed "s/\$/ $e/" >>"$TMP/names"
done
shared=$(awk '{ n[$1]++ } END { for (o in n) if (n[o] > 1) print o }' "$TMP/names" | sort)
[ -n "$shared" ] || fail "no option is listed by two engines (--enghelp output changed?)"

bad=0 checked=0
for o in $shared; do
	engs=$(awk -v o="$o" '$1 == o { print $2 }' "$TMP/names")
	for e in $engs; do
		"$FIO" --enghelp="$B/$e.so,$o" >"$TMP/h/$e.$o" 2>&1 || { cat "$TMP/h/$e.$o"; fail "$e: --enghelp of $o failed"; }
	done
	for f in type choices range default; do
		ref='' refe=''
		for e in $engs; do
			exempt "$e" "$o" "$f" && continue
			v=$(field "$(cat "$TMP/h/$e.$o")" "$f")
			if [ -z "$refe" ]; then
				ref=$v refe=$e
			elif [ "$v" != "$ref" ]; then
				echo "FAIL: $o: $f differs between $refe and $e:"
				diff <(echo "$ref") <(echo "$v") | sed -n "s/^</    $refe: /p; s/^>/    $e: /p" | head -12
				bad=$((bad + 1))
			fi
		done
	done
	checked=$((checked + 1))
done
[ $bad = 0 ] || fail "$bad differences in options two engines share"
ok "$checked options listed by more than one engine: the same type, choices, range and default in each"
