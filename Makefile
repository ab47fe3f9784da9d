# casefold — one plain Makefile.
#   make               library, casefold, casefoldfs
#   make check         a clang build and everything rebuilt under ASan+UBSan (both
#                      with -Werror), then the whole test suite
#   make check-quick   the same builds, then the quick tier (about a minute)
#   make regen UCD=DIR regenerate lib/tables from a UCD directory
#   make regen-check UCD=DIR   check lib/tables is what that UCD gives
#   make man           the manual pages, into $(O)/man
#   make bench | fuzz | install | uninstall | clean
# Honours CC, CPPFLAGS, CFLAGS, LDFLAGS, PREFIX, DESTDIR, and CC_FOR_BUILD (with
# CPPFLAGS_FOR_BUILD, CFLAGS_FOR_BUILD, LDFLAGS_FOR_BUILD) for the programs run
# during the build.  O= selects the build directory.  The project's own flags
# are kept apart from those, so a packager's CFLAGS replace only -O2 -g.
# -Werror only in the builds `make check` makes (WERROR=-Werror).

CC      ?= cc
CFLAGS  ?= -O2 -g
CC_FOR_BUILD       ?= cc
CFLAGS_FOR_BUILD   ?= -O2
CPPFLAGS_FOR_BUILD ?=
LDFLAGS_FOR_BUILD  ?=
WERROR  ?=
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
PKGCONFIG ?= pkg-config
O       ?= build
# One spelling per build directory: an absolute O inside the tree (tests
# run make with O=$CF_BUILD) names the same objects as the relative one, so
# the dependency files written by one are honoured by the other.
override O := $(patsubst $(CURDIR)/%,%,$(O))

# One version, defined once: the header's.
VERSION := $(shell sed -n 's/^\#define CF_VERSION_STRING "\(.*\)"/\1/p' include/casefold.h)
SOMAJOR := 0
SONAME  := libcasefold.so.$(SOMAJOR)

# The project's own flags: never in CPPFLAGS/CFLAGS/LDFLAGS, which belong to
# whoever runs make (a command-line CFLAGS= would silently drop a +=).
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes $(WERROR)
CF_CPPFLAGS := -D_GNU_SOURCE -Iinclude
SAN_CFLAGS  :=
SAN_LDFLAGS :=
ifeq ($(SAN),1)
SAN_CFLAGS  := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LDFLAGS := -fsanitize=address,undefined
endif
ALLCFLAGS = $(WARN) $(CF_CPPFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN_CFLAGS) -MMD -MP
ALLLDFLAGS = $(CFLAGS) $(SAN_CFLAGS) $(LDFLAGS) $(SAN_LDFLAGS)
# Programs run during the build, compiled for the build machine.
BUILD_CFLAGS = $(WARN) $(CF_CPPFLAGS) $(CPPFLAGS_FOR_BUILD) $(CFLAGS_FOR_BUILD) $(LDFLAGS_FOR_BUILD)

FUSE_CFLAGS := $(shell $(PKGCONFIG) --cflags fuse3 2>/dev/null)
FUSE_LIBS   := $(shell $(PKGCONFIG) --libs fuse3 2>/dev/null)
# casefoldfs alone: FUSE over io_uring (fs/kernel/uring.c).
URING_CFLAGS := $(shell $(PKGCONFIG) --cflags liburing 2>/dev/null)
URING_LIBS   := $(shell $(PKGCONFIG) --libs liburing 2>/dev/null)
TEST_LIBS   := -lext2fs -lcom_err $(shell $(PKGCONFIG) --libs icu-uc icu-i18n 2>/dev/null)

LIB_SRC  := $(wildcard lib/*.c) $(wildcard lib/tables/*.c)
CLI_SRC  := $(wildcard cli/*.c cli/*/*.c)
FS_SRC   := $(wildcard fs/*/*.c)
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

.PHONY: all lib man tests check check-quick regen bench fuzz fuzz-targets install uninstall clean
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
	$(CC) $(ALLCFLAGS) $(FUSE_CFLAGS) $(URING_CFLAGS) -Ifs -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(SHARED): $(PIC_OBJ) lib/libcasefold.map
	$(CC) $(ALLLDFLAGS) -shared -Wl,-soname,$(SONAME) \
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
PATHS := prefix=$(PREFIX) libdir=$(LIBDIR) includedir=$(INCDIR) bindir=$(BINDIR)
$(O)/paths: FORCE
	@mkdir -p $(@D)
	@echo '$(PATHS)' | cmp -s - $@ || echo '$(PATHS)' > $@
.PHONY: FORCE
FORCE:

# The programs link the static library, so that they run from the build
# directory; LINK=shared links them with the shared one instead, as a
# distribution ships them (debian/rules), so that a new libcasefold0 serves
# them too.
PROG_LIB := $(if $(filter shared,$(LINK)),$(SHARED),$(STATIC))
PROG_LINK = $(if $(filter shared,$(LINK)),-L$(O) -lcasefold,$(STATIC))
$(O)/casefold: $(CLI_OBJ) $(PROG_LIB)
	$(CC) $(ALLLDFLAGS) -o $@ $(CLI_OBJ) $(PROG_LINK) -lext2fs -lcom_err
$(O)/casefoldfs: $(FS_OBJ) $(PROG_LIB)
	$(CC) $(ALLLDFLAGS) -o $@ $(FS_OBJ) $(PROG_LINK) $(FUSE_LIBS) $(URING_LIBS) -lpthread

# Manual pages and --help share their text.  casefold(1) is printed by the
# tool from its verb table; mkman fills the other pages' templates from
# casefoldfs's usage data (fs/main/usage.c) and the headers' prototypes.  Both
# run on the build machine: in a cross build (CC and CC_FOR_BUILD name
# different machines) casefold(1) comes from a build-machine copy of the tool.
man: $(MANS)
CROSS ?= $(if $(filter-out $(shell $(CC_FOR_BUILD) -dumpmachine 2>/dev/null),$(shell $(CC) -dumpmachine 2>/dev/null)),1)
MAN_TOOL := $(if $(CROSS),$(O)/build-host/casefold,$(O)/casefold)
$(O)/build-host/casefold: $(CLI_SRC) $(LIB_SRC) $(wildcard cli/*.h lib/*.h lib/tables/*.h include/*.h)
	@mkdir -p $(@D)
	$(CC_FOR_BUILD) $(BUILD_CFLAGS) -DCF_BUILDING_LIBRARY -Ilib -Icli -o $@ $(CLI_SRC) $(LIB_SRC) \
	    -lext2fs -lcom_err
$(O)/man/casefold.1: $(MAN_TOOL)
	@mkdir -p $(@D)
	$(if $(and $(filter shared,$(LINK)),$(if $(CROSS),,1)),LD_LIBRARY_PATH=$(abspath $(O))) \
	    $(MAN_TOOL) help --man > $@.tmp && mv $@.tmp $@
$(O)/man/%: man/%.in $(O)/mkman include/casefold.h include/casefold_ext4.h $(O)/paths
	@mkdir -p $(@D)
	$(O)/mkman include/casefold.h include/casefold_ext4.h < $< > $@.tmp && \
	    sed -i 's|@BINDIR@|$(BINDIR)|g' $@.tmp && mv $@.tmp $@
$(O)/mkman: man/mkman.c fs/main/usage.c fs/main/usage.h include/casefold.h
	@mkdir -p $(@D)
	$(CC_FOR_BUILD) $(BUILD_CFLAGS) -Ifs -o $@ man/mkman.c fs/main/usage.c

# The table generator is a build-machine tool: never sanitized, never
# cross-compiled.
$(O)/mktables: $(GEN_SRC) $(wildcard gen/*.h)
	@mkdir -p $(@D)
	$(CC_FOR_BUILD) $(BUILD_CFLAGS) -o $@ $(GEN_SRC)

$(O)/tests/%: tests/unit/%.c $(STATIC) $(wildcard tests/unit/*.h)
	@mkdir -p $(@D)
	$(CC) $(ALLCFLAGS) -Itests/unit -Ilib -o $@ $< $(STATIC) $(ALLLDFLAGS) $(TEST_LIBS)
# fs/kernel's replies, byte for byte: the decoder and the replies compiled in.
REPLY_SRC := fs/kernel/dispatch.c fs/kernel/reply.c fs/kernel/backing.c
$(O)/tests/test_replies: tests/unit/test_replies.c $(REPLY_SRC) $(wildcard fs/kernel/*.h) tests/unit/check.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CF_CPPFLAGS) $(CPPFLAGS) $(CFLAGS) $(SAN_CFLAGS) -Itests/unit -Ifs -o $@ $< \
	    $(REPLY_SRC) $(ALLLDFLAGS) -lpthread
# The compiler and flags of this build, for the C helpers tests build at
# test time (tests/lib.sh: cf_cc).
$(O)/toolchain: FORCE
	@mkdir -p $(@D)
	@printf "CF_CC='%s'\nCF_CFLAGS='%s'\nCF_LDFLAGS='%s'\n" '$(CC)' \
	    '$(WARN) -D_GNU_SOURCE -I$(CURDIR)/include $(CPPFLAGS) $(CFLAGS) $(SAN_CFLAGS)' \
	    '$(LDFLAGS) $(SAN_LDFLAGS)' >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
tests: $(TESTS) $(O)/mktables $(O)/toolchain

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

# The whole suite (the README's test command and CI), and its quick tier
# (unit, CLI, a few filesystem basics: tests/run --quick), both on the
# sanitized build.  Both build with -Werror under clang and gcc.
# What the tests need is installed first (scripts/install-deps --tests, through
# sudo for an ordinary user); where it cannot be, the tests needing it skip.
TEST_DEPS = scripts/install-deps --tests || \
	echo "make: could not install the test dependencies; the tests needing them will skip" >&2
# Their builds use every CPU (CHECK_JOBS, default all) unless make was given
# -j itself, each command's output printed whole (-Otarget, without the
# sub-make's directory lines around each); tests/run then runs the tests in
# lanes (its header says which run alone, and why).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
CHECK_MAKE = $(MAKE) $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS)) -Otarget --no-print-directory
check:
	$(TEST_DEPS)
	$(CHECK_MAKE) O=$(O)/clang CC=clang CC_FOR_BUILD=clang WERROR=-Werror all
	$(CHECK_MAKE) O=$(O)/san SAN=1 WERROR=-Werror all tests
	$(CHECK_MAKE) O=$(O)/san WERROR=-Werror fuzz-targets
	tests/run $(O)/san
check-quick:
	$(TEST_DEPS)
	$(CHECK_MAKE) O=$(O)/san SAN=1 WERROR=-Werror all tests
	tests/run --quick $(O)/san

# libFuzzer targets: clang, ASan+UBSan, the library compiled in; in $(O)/fuzz.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst fuzz/%.c,$(O)/fuzz/%,$(wildcard fuzz/fuzz_*.c))
$(O)/fuzz/%: fuzz/%.c fuzz/fuzz.h $(LIB_SRC) $(wildcard lib/*.h lib/tables/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(CF_CPPFLAGS) $(CPPFLAGS) -Ilib -g -O1 -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -o $@ $< $(LIB_SRC) -lext2fs -lcom_err
# The request decoder alone: fs/kernel's dispatch, INIT and replies, no kernel
# (uring.c only because INIT may make the rings; the fuzzer never asks it to).
FUZZ_KERNEL_SRC := fs/kernel/dispatch.c fs/kernel/handshake.c fs/kernel/reply.c \
	fs/kernel/backing.c fs/kernel/uring.c fs/kernel/ended.c
$(O)/fuzz/fuzz_dispatch: fuzz/fuzz_dispatch.c $(FUZZ_KERNEL_SRC) $(wildcard fs/kernel/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(CF_CPPFLAGS) $(CPPFLAGS) $(URING_CFLAGS) -Ifs -g -O1 \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o $@ $< \
	    $(FUZZ_KERNEL_SRC) $(URING_LIBS) -lpthread
fuzz-targets: $(FUZZ_TARGETS)
fuzz: fuzz-targets
	tests/fuzz/seeds $(O)/fuzz/corpus
	for t in $(FUZZ_TARGETS); do \
	    $$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 \
	        $(O)/fuzz/corpus/$$(basename $$t) || exit 1; done

# The filesystem stress tests, long: STRESS_OPS operations per process, 40 kills;
# the overlay view's model test of fold-equal names (STRESS_OPS per process and phase).
STRESS_OPS ?= 10000
.PHONY: stress
stress: all
	for t in fs/stress_model fs/kill_stress view/model; do CF_BUILD=$(abspath $(O)) CF_ROOT=$(CURDIR) \
	    CF_STRESS_OPS=$(STRESS_OPS) CF_STRESS_KILLS=40 tests/$$t.sh || exit 1; done

bench:
	scripts/install-deps --bench
	$(MAKE) all
	bench/run $(O)

# Installs nothing the uninstall rule does not remove (tests/install).
install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf libcasefold.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libcasefold.so
	install -m 644 include/casefold.h include/casefold_ext4.h $(DESTDIR)$(INCDIR)/
	install -m 644 $(O)/libcasefold.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 755 $(O)/casefold $(DESTDIR)$(BINDIR)/
	install -m 644 $(O)/man/casefold.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(O)/man/libcasefold.3 $(DESTDIR)$(MANDIR)/man3/
	$(if $(FS_SRC),install -m 755 $(O)/casefoldfs $(DESTDIR)$(BINDIR)/)
	$(if $(FS_SRC),install -m 644 $(O)/man/casefoldfs.8 $(DESTDIR)$(MANDIR)/man8/)
	@# The dynamic linker finds a new library in /usr/local/lib only after ldconfig.
	$(if $(DESTDIR),,-ldconfig)

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libcasefold.a $(DESTDIR)$(LIBDIR)/libcasefold.so \
	      $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libcasefold.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/pkgconfig/libcasefold.pc \
	      $(DESTDIR)$(INCDIR)/casefold.h $(DESTDIR)$(INCDIR)/casefold_ext4.h \
	      $(DESTDIR)$(BINDIR)/casefold $(DESTDIR)$(BINDIR)/casefoldfs \
	      $(DESTDIR)$(MANDIR)/man1/casefold.1 $(DESTDIR)$(MANDIR)/man3/libcasefold.3 \
	      $(DESTDIR)$(MANDIR)/man8/casefoldfs.8
	$(if $(DESTDIR),,-ldconfig)

clean:
	rm -rf $(O)

-include $(wildcard $(O)/*/*.d $(O)/*/*/*.d $(O)/pic/*/*.d $(O)/pic/*/*/*.d)
