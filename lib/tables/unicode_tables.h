/*
 * generated — do not edit.
 * Made by gen/mktables (`make regen UCD=DIR`) from the Unicode Character
 * Database 17.0.0; inputs and their SHA-256:
 *   f8ecdf768bdc210f201abd271d9bc587825618a86a7046a8146cc816393f1998  DerivedAge.txt
 *   2e1efc1dcb59c575eedf5ccae60f95229f706ee6d031835247d843c11d96470c  UnicodeData.txt
 *   ff8d8fefbf123574205085d6714c36149eb946d717a0c585c27f0f4ef58c4183  CaseFolding.txt
 *   24c7fed1195c482faaefd5c1e7eb821c5ee1fb6de07ecdbaa64b56a99da22c08  DerivedCoreProperties.txt
 *   5019ffd530751a741900c849c0e010332f142a3612234639bd200b82138a87db  NormalizationTest.txt
 */
#ifndef CF_UNICODE_TABLES_H
#define CF_UNICODE_TABLES_H

#include <stdint.h>

#define CF_UCD_VERSION "17.0.0"
#define CF_NVERSIONS 28 /* ages 1..CF_NVERSIONS; 0 = unassigned */
#define CF_SHIFT1 8
#define CF_SHIFT2 3
#define CF_MAP_MAX 12 /* longest mapping, in bytes */
#define CF_GAP_FIRST 0x40000 /* planes without characters: */
#define CF_GAP_END 0xE0000   /* CF_GAP_VALUE, or for U+xFFFE/F */
#define CF_GAP_VALUE 0x0000 /* CF_GAP_NONCHAR_VALUE */
#define CF_GAP_NONCHAR_VALUE 0x0001
#define CF_TABLE_BYTES 62313 /* trie + classes + pool + versions */

extern const uint8_t cf_trie1[1792];
extern const uint16_t cf_trie2[6112];
extern const uint16_t cf_direct2[1920]; /* U+0080..U+07FF */
extern const uint16_t cf_trie3[11096];
extern const uint8_t cf_classes[250][4];
extern const uint8_t cf_pool[21207];
extern const uint8_t cf_ages[29][2];
extern const char *const cf_utf8_names[29];

#endif
