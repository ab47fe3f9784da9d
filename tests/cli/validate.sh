#!/usr/bin/env bash
# validate on valid and invalid bytes, and how --strict turns the kernel's
# tolerated input into errors for fold and normalize.
. "$(dirname "$0")/lib.sh"

check "valid names" 0 $'valid\nvalid\nvalid' "$CF" validate abc Straße $'\u212b'
check "unassigned code point is valid" 0 valid "$CF" validate $'\U000e0fff'
check "noncharacter is valid" 0 valid "$CF" validate $'\uffff'
for bad in '\xff' '\xc0\xaf' '\xed\xa0\x80' '\xf4\x90\x80\x80' '\xe2\x84' '\x80a' 'a\x80' 'a\xc3'; do
	check "invalid $bad" 1 "error: R" reasons "$CF" validate "$(printf "$bad")"
done
check "one invalid among valid" 1 $'valid\nerror: R\nvalid' reasons "$CF" validate a $'\xff' b
check "ascii: 7-bit valid" 0 valid "$CF" validate --encoding=ascii 'Hello, World'
check "ascii: 8-bit invalid" 1 "error: R" reasons "$CF" validate --encoding=ascii Straße
check "validate takes no --strict" 2 "" "$CF" validate --strict abc

input 'ok\n\xc0\x80\nfine\n'
check "validate -" 1 $'valid\nerror: R\nvalid' reasons "$CF" validate -
input 'ok\0\xc0\x80\0'
check "validate -0 -" 1 "valid|error: R|" \
	bash -c 'set -o pipefail; "$1" validate -0 - | tr "\0" "|" | sed "s/error: [^|]*/error: R/"' sh "$CF"
no_input

# A stray continuation byte inside a name: the kernel passes it through,
# validate and --strict refuse it.
stray=$'A\x80'
check "fold passes a stray continuation byte" 0 6180 "$CF" fold --hex "$stray"
check "fold --strict refuses it" 1 "error: R" reasons "$CF" fold --strict --hex "$stray"
check "normalize --strict refuses it" 1 "error: R" reasons "$CF" normalize --strict "$stray"
check "--strict leaves valid names alone" 0 61cc8a "$CF" fold --strict --hex $'\u212b'
# Ill-formed sequences are errors with or without --strict.
check "fold: overlong" 1 "error: R" reasons "$CF" fold $'\xc0\xaf'
check "fold: leading continuation byte" 1 "error: R" reasons "$CF" fold $'\x80A'

finish
