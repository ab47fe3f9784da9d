/* Internal view of a cf_encoding. */
#ifndef CF_ENCODING_H
#define CF_ENCODING_H

enum {
	CF_KIND_UTF8 = 0,
	CF_KIND_ASCII = 1,
};

#endif
