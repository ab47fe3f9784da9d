/*
 * Quoting names for people and for JSON, by one rule.  Names are bytes:
 * they may be invalid UTF-8 and hold control or invisible characters, and
 * the point of a report is to show names that look alike, so nothing may
 * reach a terminal or a JSON document raw unless it shows as itself.
 *
 * A name is read one UTF-8 sequence at a time, each judged by libcasefold's
 * validator, so that reports and the file system agree on what is valid.
 * Every piece is one of:
 *   invalid    a byte that is not part of a valid sequence (ill-formed
 *              UTF-8), taken alone: the valid characters around it still
 *              show as themselves;
 *   control    NUL and the other C0 controls, DEL, the C1 controls;
 *   invisible  a character that normalization removes (Default_Ignorable)
 *              under the newest Unicode the library knows: what a terminal
 *              draws does not depend on the version a file system folds
 *              with, and the newest version knows the most of them;
 *   plain      any other character, written as its bytes.
 */
#ifndef CLI_QUOTE_H
#define CLI_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/*
 * For people, so that they see every byte and can paste the name into a
 * shell: bare if every piece is plain and free of shell syntax; '...' if
 * every piece is plain; otherwise $'...', where invalid bytes and C0/DEL
 * are \xHH, C1 and invisible characters \uXXXX (\UXXXXXXXX above U+FFFF),
 * and ' and \ are \' and \\.
 */
void cli_quote_shell(FILE *f, const char *s, size_t len);

/*
 * The same, with every character beyond ASCII escaped too ($'caf\u00e9'
 * and $'cafe\u0301'): for names that cli_quote_shell would show alike.
 */
void cli_quote_shell_ascii(FILE *f, const char *s, size_t len);

/*
 * A JSON string: each invalid byte is U+FFFD (cli_quote_hex keeps the exact
 * bytes), control and invisible characters are \uXXXX escapes (surrogate
 * pairs above U+FFFF), " and \ are \" and \\.
 */
void cli_quote_json(FILE *f, const char *s, size_t len);

/* The exact bytes as lowercase hex digits, in a JSON string. */
void cli_quote_hex(FILE *f, const char *s, size_t len);

#endif
