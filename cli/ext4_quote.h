/*
 * Names in ext4 reports: file names are bytes, and may be invalid UTF-8 or
 * hold control or invisible characters; these print them without
 * corrupting a terminal or a JSON document.
 */
#ifndef CLI_EXT4_QUOTE_H
#define CLI_EXT4_QUOTE_H

#include <stddef.h>
#include <stdio.h>

/* "name" in double quotes; control characters, bytes that are not part of
 * valid UTF-8 and invisible (Default_Ignorable) characters as \xHH, " and
 * \ as \" and \\. */
void cli_ext4_quote_text(FILE *f, const char *s, size_t len);

/* A JSON string; bytes that are not part of valid UTF-8 become U+FFFD
 * (cli_ext4_quote_hex keeps the exact bytes). */
void cli_ext4_quote_json(FILE *f, const char *s, size_t len);

/* The bytes as lowercase hex digits, in a JSON string. */
void cli_ext4_quote_hex(FILE *f, const char *s, size_t len);

#endif
