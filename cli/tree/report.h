/*
 * The audit report, streamed as findings arrive: human-readable lines, one
 * JSON document, or NUL-separated records (-0); convert reports through
 * it too.
 */
#ifndef CLI_AUDIT_REPORT_H
#define CLI_AUDIT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "progress.h"
#include "tree/findings.h"

enum cli_format { CLI_HUMAN, CLI_JSON, CLI_RECORDS };

struct cli_audit_report {
	FILE *f;
	enum cli_format format;
	const struct cli_rules *rules;
	struct cli_progress *progress; /* cleared before each line; may be NULL */
	uint64_t count[3];             /* findings per cli_finding_kind */
	uint64_t errors;
	int items;                     /* JSON elements written so far */
};

void cli_audit_begin(struct cli_audit_report *r);
void cli_audit_finding(struct cli_audit_report *r, const char *dir, const struct cli_dirlist *l,
			const struct cli_finding *f);
/* Also says it on standard error, whatever the format. */
void cli_audit_error(struct cli_audit_report *r, const char *path, int err);
void cli_audit_end(struct cli_audit_report *r, uint64_t directories, uint64_t entries);

#endif
