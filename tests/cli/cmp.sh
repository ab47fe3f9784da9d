#!/usr/bin/env bash
# cmp: exit 0 equal, 1 different, 2 error; nfdi by default, nfdicf with --nocase.
. "$(dirname "$0")/lib.sh"

check "identical" 0 "" "$CF" cmp abc abc
check "canonically equivalent" 0 "" "$CF" cmp $'\u00c5' $'A\u030a'
check "Angstrom sign" 0 "" "$CF" cmp $'\u212b' $'\u00c5'
check "case differs" 1 "" "$CF" cmp abc ABC
check "case differs, --nocase" 0 "" "$CF" cmp --nocase abc ABC
check "sharp s, --nocase" 0 "" "$CF" cmp --nocase Straße STRASSE
check "sharp s without --nocase" 1 "" "$CF" cmp Straße strasse
check "different, --nocase" 1 "" "$CF" cmp --nocase abc abd
check "ignorable stripped" 0 "" "$CF" cmp $'a\u200bb' ab
check "ignorable kept" 1 "" "$CF" cmp --ignorables=keep $'a\u200bb' ab
check "Cherokee folds in 12.1.0" 0 "" "$CF" cmp --nocase $'\uab70' $'\u13a0'
check "Cherokee unassigned in 7.0.0" 1 "" "$CF" cmp --nocase --encoding=utf8-7.0.0 $'\uab70' $'\u13a0'
check "ascii folds A-Z only" 1 "" "$CF" cmp --nocase --encoding=ascii É é

# Invalid names are opaque bytes unless --strict.
check "invalid equals itself" 0 "" "$CF" cmp $'\xff' $'\xff'
check "invalid equals itself, --nocase" 0 "" "$CF" cmp --nocase $'\xffA' $'\xffA'
check "invalid differs by case" 1 "" "$CF" cmp --nocase $'\xffA' $'\xffa'
check "--strict: invalid is an error" 2 "" "$CF" cmp --strict $'\xff' $'\xff'
check "--strict --nocase: invalid is an error" 2 "" "$CF" cmp --strict --nocase abc $'\xff'
check "--strict: stray continuation is an error" 2 "" "$CF" cmp --strict --nocase $'a\x80' $'A\x80'
check "stray continuation tolerated" 0 "" "$CF" cmp --nocase $'a\x80' $'A\x80'
grep -q '^casefold: ' "$TMP/err" && record_failure "tolerated compare wrote to stderr"
"$CF" cmp --strict abc $'\xff' 2>"$TMP/err"
grep -q '^casefold: ' "$TMP/err" || record_failure "error not reported on stderr"

check "one operand" 2 "" "$CF" cmp abc
check "three operands" 2 "" "$CF" cmp a b c
check "--hex is not a cmp option" 2 "" "$CF" cmp --hex a b

finish
