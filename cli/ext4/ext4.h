/* The actions of the verb ext4 (cli/ext4/ext4.c dispatches to them). */
#ifndef CLI_EXT4_H
#define CLI_EXT4_H

#include "options.h"

/* Each returns the exit status; path is an image file or a device. */
int cli_ext4_info(const struct cli_args *args, const char *path);
int cli_ext4_audit(const struct cli_args *args, const char *path);

#endif
