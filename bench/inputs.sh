#!/bin/sh
# Makes the library benchmark's inputs in DIR (default build/bench):
#   ascii.names  basenames of every path dpkg lists (/var/lib/dpkg/info/*.list), deduplicated;
#   words.names  PER words from each language's Debian word list or hunspell dictionary,
#                evenly spread over the list, every third one capitalised.
# The same packages give the same files.  A missing dictionary is reported and skipped.
set -eu
dir=${1:-build/bench}
per=${PER:-5000}
mkdir -p "$dir"
export LC_ALL=C.UTF-8

cat /var/lib/dpkg/info/*.list | sed 's,.*/,,' | LC_ALL=C sort -u | grep -v '^$' >"$dir/ascii.names"

# language, file, Debian package that ships it
langs="french /usr/share/dict/french wfrench
german /usr/share/dict/ngerman wngerman
spanish /usr/share/dict/spanish wspanish
portuguese /usr/share/dict/portuguese wportuguese
polish /usr/share/dict/polish wpolish
ukrainian /usr/share/dict/ukrainian wukrainian
bulgarian /usr/share/dict/bulgarian wbulgarian
greek /usr/share/hunspell/el_GR.dic hunspell-el
russian /usr/share/hunspell/ru_RU.dic hunspell-ru
turkish /usr/share/hunspell/tr_TR.dic hunspell-tr
vietnamese /usr/share/hunspell/vi_VN.dic hunspell-vi"

# Words of a list, one a line, in UTF-8.  hunspell: a count on line 1, the
# dictionary's charset in the .aff's SET line, affix flags after '/'.
words() {
	case $1 in
	*.dic)
		set=$(sed -n 's/^SET[[:space:]]*\([^[:space:]]*\).*/\1/p' "${1%.dic}.aff" | head -1)
		tail -n +2 "$1" | iconv -f "${set:-UTF-8}" -t UTF-8 | sed 's,[/[:space:]].*,,' ;;
	*) cat "$1" ;;
	esac
}

: >"$dir/words.names"
echo "$langs" | while read -r lang file pkg; do
	if [ ! -r "$file" ]; then
		echo "inputs: no $lang word list ($file; Debian package $pkg)" >&2
		continue
	fi
	words "$file" | grep -v '^$' >"$dir/$lang.all"
	total=$(wc -l <"$dir/$lang.all")
	step=$((total / per)); [ "$step" -ge 1 ] || step=1
	awk -v s="$step" 'NR % s == 0' "$dir/$lang.all" | head -n "$per" |
		sed '3~3s/^./\u&/' >>"$dir/words.names"
	rm -f "$dir/$lang.all"
done
