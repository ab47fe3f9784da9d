# casefold — one plain Makefile.
#   make               library, casefold, casefoldfs
#   make check         a clang build (-Werror), everything rebuilt under ASan+UBSan,
#                      then the whole test suite
#   make regen UCD=DIR regenerate lib/tables from a UCD directory
#   make regen-check UCD=DIR   check lib/tables is what that UCD gives
#   make man           the manual pages, into $(O)/man
#   make bench | fuzz | install | uninstall | clean
# Honours CC, CFLAGS, LDFLAGS, PREFIX, DESTDIR.  O= selects the build directory.

CC      ?= cc
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
PKGCONFIG ?= pkg-config
O       ?= build

# One version, defined once: the header's.
VERSION := $(shell sed -n 's/^\#define CF_VERSION_STRING "\(.*\)"/\1/p' include/casefold.h)
SOMAJOR := 0
SONAME  := libcasefold.so.$(SOMAJOR)

WARN     := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -D_GNU_SOURCE -Iinclude
ifeq ($(SAN),1)
CFLAGS   += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif
ALLCFLAGS = $(WARN) $(CPPFLAGS) $(CFLAGS) -MMD -MP

FUSE_CFLAGS := $(shell $(PKGCONFIG) --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(shell $(PKGCONFIG) --libs fuse3 2>/dev/null)
TEST_LIBS   := -lext2fs -lcom_err $(shell $(PKGCONFIG) --libs icu-uc icu-i18n 2>/dev/null)

LIB_SRC  := $(wildcard lib/*.c) $(wildcard lib/tables/*.c)
CLI_SRC  := $(wildcard cli/*.c cli/*/*.c)
FS_SRC   := $(wildcard fs/*.c)
GEN_SRC  := $(wildcard gen/*.c)
TEST_SRC := $(wildcard tests/unit/*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(O)/%.o)
PIC_OBJ  := $(LIB_SRC:%.c=$(O)/pic/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(O)/%.o)
FS_OBJ   := $(FS_SRC:%.c=$(O)/%.o)
TESTS    := $(TEST_SRC:tests/unit/%.c=$(O)/tests/%)

STATIC := $(O)/libcasefold.a
SHARED := $(O)/libcasefold.so.$(VERSION)
PROGS  := $(O)/casefold $(if $(FS_SRC),$(O)/casefoldfs)
MANS   := $(O)/man/casefold.1 $(O)/man/libcasefold.3 $(if $(FS_SRC),$(O)/man/casefoldfs.8)

.PHONY: all lib man tests check regen bench fuzz fuzz-targets install uninstall clean
all: lib $(PROGS) man
lib: $(STATIC) $(SHARED) $(O)/libcasefold.pc

$(O)/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -DCF_BUILDING_LIBRARY -fvisibility=hidden -Ilib -c $< -o $@
$(O)/pic/lib/%.o: lib/%.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -DCF_BUILDING_LIBRARY -fvisibility=hidden -fPIC -Ilib -c $< -o $@
$(O)/cli/%.o: cli/%.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Icli -c $< -o $@
$(O)/fs/%.o: fs/%.c
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) $(FUSE_CFLAGS) -Ifs -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(SHARED): $(PIC_OBJ) lib/libcasefold.map
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) \
	    -Wl,--version-script=lib/libcasefold.map -o $@ $(PIC_OBJ)
	ln -sf libcasefold.so.$(VERSION) $(O)/$(SONAME)
	ln -sf $(SONAME) $(O)/libcasefold.so
$(O)/libcasefold.pc: lib/libcasefold.pc.in include/casefold.h $(O)/paths
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCDIR@|$(INCDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# The installation paths that generated files name (libcasefold.pc,
# casefoldfs(8)), rewritten only when they change: packagers build once with
# `make` and install with `make install PREFIX=/usr DESTDIR=...`, which then
# regenerates exactly those files.  DESTDIR is only staging: never named.
PATHS := prefix=$(PREFIX) libdir=$(LIBDIR) includedir=$(INCDIR) sbindir=$(SBINDIR)
$(O)/paths: FORCE
	@mkdir -p $(@D)
	@echo '$(PATHS)' | cmp -s - $@ || echo '$(PATHS)' > $@
.PHONY: FORCE
FORCE:

$(O)/casefold: $(CLI_OBJ) $(STATIC)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lext2fs -lcom_err
$(O)/casefoldfs: $(FS_OBJ) $(STATIC)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(FUSE_LIBS) -lpthread

# Manual pages and --help share their text.  casefold(1) is printed by the
# tool from its verb table; mkman fills the other pages' templates from
# casefoldfs's usage data (fs/usage.c) and the headers' prototypes.
man: $(MANS)
$(O)/man/casefold.1: $(O)/casefold
	@mkdir -p $(@D)
	$(O)/casefold help --man > $@.tmp && mv $@.tmp $@
$(O)/man/%: man/%.in $(O)/mkman include/casefold.h include/casefold_ext4.h $(O)/paths
	@mkdir -p $(@D)
	$(O)/mkman include/casefold.h include/casefold_ext4.h < $< > $@.tmp && \
	    sed -i 's|@SBINDIR@|$(SBINDIR)|g' $@.tmp && mv $@.tmp $@
$(O)/mkman: man/mkman.c fs/usage.c fs/usage.h include/casefold.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) -Ifs -O2 -o $@ man/mkman.c fs/usage.c

# The table generator is a host tool: never sanitized, never cross-compiled.
$(O)/mktables: $(GEN_SRC) $(wildcard gen/*.h)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) -O2 -o $@ $(GEN_SRC)

$(O)/tests/%: tests/unit/%.c $(STATIC) $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Itests/unit -Ilib -o $@ $< $(STATIC) $(LDFLAGS) $(TEST_LIBS)
tests: $(TESTS) $(O)/mktables

# The generated tables: inputs are the UCD files, output is committed.
UCD ?= ../shared/ucd/17.0.0
regen: $(O)/mktables
	$(O)/mktables $(UCD) lib/tables

# The committed tables are reproducible: UCD names the 17.0.0 files, UCD12
# (optional) the 12.1.0 ones.  tests/gen/regen.sh runs it in make check.
.PHONY: regen-check
regen-check: $(O)/mktables
	CF_BUILD=$(abspath $(O)) CF_ROOT=$(CURDIR) CF_UCD=$(abspath $(UCD)) \
	    $(if $(UCD12),CF_UCD12=$(abspath $(UCD12))) tests/gen/regen.sh

check:
	$(MAKE) O=build/clang CC=clang all
	$(MAKE) O=build/san SAN=1 all tests
	$(MAKE) fuzz-targets
	tests/run build/san

# libFuzzer targets: clang, ASan+UBSan, the library compiled in.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst fuzz/%.c,build/fuzz/%,$(wildcard fuzz/fuzz_*.c))
build/fuzz/%: fuzz/%.c fuzz/fuzz.h $(LIB_SRC) $(wildcard lib/*.h lib/tables/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(CPPFLAGS) -Ilib -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -o $@ $< $(LIB_SRC) -lext2fs -lcom_err
fuzz-targets: $(FUZZ_TARGETS)
fuzz: fuzz-targets
	tests/fuzz/seeds build/fuzz/corpus
	for t in $(FUZZ_TARGETS); do \
	    $$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	        build/fuzz/corpus/$$(basename $$t) || exit 1; done

# The filesystem stress tests, long: STRESS_OPS operations per process, 40 kills.
STRESS_OPS ?= 10000
.PHONY: stress
stress: all
	for t in stress_model kill_stress; do CF_BUILD=$(abspath $(O)) CF_ROOT=$(CURDIR) \
	    CF_STRESS_OPS=$(STRESS_OPS) CF_STRESS_KILLS=40 tests/fs/$$t.sh || exit 1; done

bench:
	$(MAKE) all
	bench/run $(O)

# Installs nothing the uninstall rule does not remove (tests/install).
install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libcasefold.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libcasefold.so
	install -m 644 include/casefold.h include/casefold_ext4.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(O)/libcasefold.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 755 $(O)/casefold $(DESTDIR)$(BINDIR)/
	install -m 644 $(O)/man/casefold.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(O)/man/libcasefold.3 $(DESTDIR)$(MANDIR)/man3/
	$(if $(FS_SRC),install -m 755 $(O)/casefoldfs $(DESTDIR)$(SBINDIR)/)
	$(if $(FS_SRC),install -m 644 $(O)/man/casefoldfs.8 $(DESTDIR)$(MANDIR)/man8/)
	@# The dynamic linker finds a new library in /usr/local/lib only after ldconfig.
	$(if $(DESTDIR),,-ldconfig)

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libcasefold.a $(DESTDIR)$(LIBDIR)/libcasefold.so \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libcasefold.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/libcasefold.pc \
	      $(DESTDIR)$(INCDIR)/casefold.h $(DESTDIR)$(INCDIR)/casefold_ext4.h \
	      $(DESTDIR)$(BINDIR)/casefold $(DESTDIR)$(SBINDIR)/casefoldfs \
	      $(DESTDIR)$(MANDIR)/man1/casefold.1 $(DESTDIR)$(MANDIR)/man3/libcasefold.3 \
	      $(DESTDIR)$(MANDIR)/man8/casefoldfs.8
	$(if $(DESTDIR),,-ldconfig)

clean:
	rm -rf build

-include $(wildcard $(O)/*/*.d $(O)/*/*/*.d $(O)/pic/*/*.d $(O)/pic/*/*/*.d)
