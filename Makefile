# dbfio - fio external ioengines that replay what databases do to storage.
#
#   make            build every engine as build/<engine>.so (after ./configure;
#                   it never installs packages nor downloads anything)
#   make check      all set-up (packages, configure, build, cluster) + tests
#                   (T="t-a t-b": only those; SANITIZE=1: ASan+UBSan engines in build/asan)
#   make check-quick  the quick tier (tests/run --quick: no root, no cluster, no
#                   database; ~2 min): builds, then runs; needs ./configure done,
#                   not the set-up of make check
#   make lint       flake8 (.flake8) on the Python, shellcheck (.shellcheckrc) on
#                   the shell scripts; needs neither set-up nor configure
#   make mutants    mutation check: every mutant of tests/mutants.txt killed
#   make demo       all set-up + short versions of the four seed experiments
#   make results    all set-up + their full versions -> results/
#   make bench      side-by-side benchmarks -> results/bench.md
#   make fidelity   real PostgreSQL/MariaDB vs dbfio on local, CephFS, ext4-on-RBD -> results/fidelity.md
#   make install    engines and libdbfio.so into $(LIBDIR)/dbfio, job files into
#                   $(PREFIX)/share/dbfio/jobs, dbfio-* commands, man pages;
#                   make uninstall removes exactly that; make deb: a .deb in $(B)/
#   make clean      objects, engines, tools; make distclean: also the clusters
#                   tools/cluster and the seed 003 experiment started, and build/
#
# Set-up (tools/deps installs packages, ./configure --fetch-fio-source fetches
# fio's Debian source) happens only in `setup`, which check, mutants, demo,
# results, bench and fidelity run first.
#
# The store layer is compiled with dbfio's own build/config.h; engines see
# fio's headers with fio's config-host.h (both define CONFIG_* symbols, so the
# two are never mixed in one translation unit).

B := build
comma := ,
# configure always writes build/config.{mk,h}; B=DIR puts objects and
# engines elsewhere (e.g. make B=build/asan SANITIZE=1: a sanitized copy).
CB := build
-include $(CB)/config.mk

# Without a configuration only the goals that configure (the set-up ones) or
# need none go on; the others stop here with one line.
SETUP_GOALS := check mutants demo results bench fidelity setup configure deps clean distclean lint
ifeq ($(wildcard $(CB)/config.mk),)
ifneq ($(filter-out $(SETUP_GOALS),$(or $(MAKECMDGOALS),all)),)
$(error $(CB)/config.mk is missing: run ./configure (make check also installs the packages, configures, builds and tests))
endif
endif

ifeq ($(V),1)
Q :=
QUIET_CC =
QUIET_LINK =
else
Q := @
QUIET_CC = @echo '  CC      ' $@;
QUIET_LINK = @echo '  LINK    ' $@;
endif

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
BASE_CFLAGS := -std=gnu11 -fPIC $(WARN) -D_GNU_SOURCE -D_LARGEFILE_SOURCE -D_FILE_OFFSET_BITS=64
FIO_CFLAGS := -I$(FIO_SRC) -include config-host.h -Wno-sign-compare -Wno-address-of-packed-member
# the fio version the engines are built against: checked at load (fio_store.c)
ENGINE_FIO_VERSION ?= fio-$(FIO_VERSION)
FIO_CFLAGS += -DDBFIO_FIO_VERSION='"$(ENGINE_FIO_VERSION)"'
STORE_CFLAGS := -include $(CB)/config.h -Iengines
LDFLAGS_SO := -shared -rdynamic -Wl,-z,nodelete -Wl,--version-script=engines/glue/export.map

ifeq ($(SANITIZE),1)
# a separate build dir, so the sanitized objects never mix with the plain ones
B := build/asan
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer
LDFLAGS_SO += -fsanitize=address,undefined
endif

# The store layer (engines/store/): backends whose library configure found,
# the latency histograms, the ownership marker and the sidecars' JSON
# writer. fio-free, built with dbfio's build/config.h.
STORE_SRC := engines/store/store.c engines/store/store_phase.c engines/store/store_posix.c \
	engines/store/latstat.c engines/store/owner.c engines/store/json_out.c
STORE_LIBS := -lpthread
ifdef CONFIG_LIBURING
STORE_SRC += engines/store/store_uring.c
STORE_LIBS += -luring
endif
ifdef CONFIG_LIBAIO
STORE_SRC += engines/store/store_aio.c
STORE_LIBS += -laio
endif
ifdef CONFIG_LIBCEPHFS
STORE_SRC += engines/store/store_cephfs.c
STORE_LIBS += -lcephfs
endif
ifdef CONFIG_RBD
STORE_SRC += engines/store/store_rbd.c engines/store/store_rbd_table.c engines/store/store_rbd_lock.c
STORE_LIBS += -lrbd -lrados
endif
# the Ceph clients the rbd and cephfs backends (and rbdsnap) share
ifneq ($(CONFIG_RBD)$(CONFIG_LIBCEPHFS),)
STORE_SRC += engines/store/ceph_conn.c
endif
STORE_OBJ := $(STORE_SRC:engines/%.c=$(B)/obj/%.o)

# The database models (libdbfio.so with the store layer): the log writer
# (InnoDB redo, PostgreSQL WAL, binlog), the checkpointer, the relation
# files, the buffer pool and the rest of txn's database, the DDL recipes,
# dbtime. fio-free like the store layer and built the same way; every engine
# that models a database links them from the library, so one process has one
# copy of each registry (open logs, txn databases) whatever engines it loads.
MODEL_SRC := engines/dbtime/dbtime.c \
	engines/redolog/redolog_log.c engines/redolog/redolog_flush.c \
	engines/redolog/redolog_opts.c engines/redolog/redolog_wal.c \
	engines/pgpage/pgpage_ckpt.c engines/pgpage/pgpage_dblwr.c engines/pgpage/pgpage_files.c \
	engines/metastorm/metastorm_ddl.c \
	$(filter-out engines/txn/txn.c,$(wildcard engines/txn/txn_*.c))
MODEL_OBJ := $(MODEL_SRC:engines/%.c=$(B)/obj/lib/%.o)

# Engines: engines/<name>/ (the fio hooks in <name>.c and the fio halves
# that are not models) plus the fio glue (engines/glue/) and libdbfio.
# Engines built: those whose folder exists; rbdsnap needs librbd.
ENGINES := $(foreach e,storeio redolog pgpage metastorm txn $(if $(CONFIG_RBD),rbdsnap),\
	$(if $(wildcard engines/$(e)/$(e).c),$(e)))
# <engine>_LIBS = more libraries.
rbdsnap_LIBS := -lrbd -lrados
ifdef CONFIG_RBD_SNAP_CREATE2
$(B)/obj/eng/rbdsnap/rbdsnap_sched.o: CFLAGS += -DRBDSNAP_HAVE_SNAP_CREATE2
endif
engine_obj = $(patsubst engines/%.c,$(B)/obj/eng/%.o,$(filter-out $(MODEL_SRC),$(wildcard engines/$(1)/*.c)))

ENGINE_SO := $(ENGINES:%=$(B)/%.so)
TOOLS := $(patsubst tools/%.c,$(B)/%,$(wildcard tools/*.c))
# the lab's programs (lab/*.c: what the project measures itself with) the same way
TOOLS += $(patsubst lab/%.c,$(B)/%,$(wildcard lab/*.c))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/*.c))
HEADERS := $(wildcard engines/*/*.h)

# keep the objects make would treat as intermediate
.SECONDARY:

.PHONY: all check check-quick lint mutants demo results bench fidelity install uninstall deb clean distclean deps configure setup

all: $(LIBDBFIO) $(ENGINE_SO) $(TOOLS) $(UNIT_TESTS)

# the store layer: dbfio's config.h, never fio's headers
$(B)/obj/store/%.o: engines/store/%.c $(HEADERS) $(CB)/config.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(BASE_CFLAGS) $(STORE_CFLAGS) $(CFLAGS) -c -o $@ $<

# the models: fio-free, dbfio's config.h, as the store layer
$(B)/obj/lib/%.o: engines/%.c $(HEADERS) $(CB)/config.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(BASE_CFLAGS) $(STORE_CFLAGS) $(CFLAGS) -c -o $@ $<

# engines and the fio glue: fio's headers with fio's config-host.h
$(B)/obj/eng/%.o: engines/%.c $(HEADERS) $(CB)/config.mk
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(BASE_CFLAGS) $(FIO_CFLAGS) -Iengines $(CFLAGS) -c -o $@ $<

# The calibration profiles shipped with dbfio (calibration=NAME, see
# engines/glue/fio_calib.h), embedded in libdbfio as C strings from
# jobs/<engine>-profiles/NAME.fio, which stay the source.
CALIB_SRC := $(sort $(wildcard jobs/txn-profiles/*.fio jobs/metastorm-profiles/*.fio))
CALIB_OBJ := $(B)/obj/lib/gen/calib_text.o
$(B)/gen/calib_text.c: $(CALIB_SRC) Makefile
	@mkdir -p $(dir $@)
	$(Q){ echo '#include "glue/calib_text.h"'; \
	  echo 'const struct dbfio_calib_text dbfio_calibs[] = {'; \
	  for f in $(CALIB_SRC); do e=$${f#jobs/}; \
	    printf '\t{ "%s", "%s",\n' "$${e%%-profiles/*}" "$$(basename "$$f" .fio)"; \
	    sed 's/\\/\\\\/g; s/"/\\"/g; s/^/\t  "/; s/$$/\\n"/' "$$f"; \
	    printf '\t},\n'; done; \
	  printf '\t{ 0, 0, 0 }\n};\n'; } >$@.tmp && mv $@.tmp $@
$(CALIB_OBJ): $(B)/gen/calib_text.c engines/glue/calib_text.h $(CB)/config.h
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(BASE_CFLAGS) $(STORE_CFLAGS) $(CFLAGS) -c -o $@ $<

# The store layer and the models are one shared library, libdbfio.so,
# beside the engines: loaded once per process (its soname is matched before any path), so every
# engine of one fio shares one registry of directory locks, ownership claims
# and Ceph clients. Engines find it through their $$ORIGIN rpath.
LIBDBFIO := $(B)/libdbfio.so
$(LIBDBFIO): $(STORE_OBJ) $(MODEL_OBJ) $(CALIB_OBJ)
	$(QUIET_LINK)$(CC) $(CFLAGS) -shared -Wl,-soname,libdbfio.so -Wl,-z,nodelete \
		$(if $(filter 1,$(SANITIZE)),-fsanitize=address$(comma)undefined) -o $@ $^ $(STORE_LIBS)

ENGINE_COMMON := $(B)/obj/eng/glue/fio_store.o $(B)/obj/eng/glue/fio_calib.o $(LIBDBFIO)

.SECONDEXPANSION:
# (the Makefile too: a change of how engines link relinks them)
$(B)/%.so: $$(call engine_obj,$$*) $(ENGINE_COMMON) engines/glue/export.map Makefile
	$(QUIET_LINK)$(CC) $(CFLAGS) $(LDFLAGS_SO) -o $@ $(filter %.o,$^) \
		-L$(B) -ldbfio -Wl,-rpath,'$$ORIGIN' $($*_LIBS) $(STORE_LIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/check.h $(STORE_OBJ) $(HEADERS)
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(BASE_CFLAGS) $(STORE_CFLAGS) $(CFLAGS) -o $@ $< $(STORE_OBJ) $(STORE_LIBS)
# unit programs that compile engine sources in
$(B)/tests/txn_pool_test: engines/txn/txn_pool.c engines/pgpage/pgpage_ckpt.c engines/pgpage/pgpage_dblwr.c
$(B)/tests/dbtime_ws_test: engines/dbtime/dbtime.c engines/dbtime/dbtime.h
$(B)/tests/rbdsnap_trim_test: engines/rbdsnap/rbdsnap_trim.c

# logverify, the oracle of the engines' logs, reads them from the documented
# format with its own code: neither the store layer nor an engine header
LOGVERIFY_LIBS :=
ifdef CONFIG_LIBCEPHFS
LOGVERIFY_LIBS += -lcephfs
endif
ifdef CONFIG_RBD
LOGVERIFY_LIBS += -lrbd -lrados
endif
$(B)/logverify: tools/logverify.c $(CB)/config.h
	$(QUIET_LINK)$(CC) $(BASE_CFLAGS) -include $(CB)/config.h $(CFLAGS) -o $@ $< $(LOGVERIFY_LIBS)

$(B)/%: tools/%.c $(STORE_OBJ) $(HEADERS)
	$(QUIET_LINK)$(CC) $(BASE_CFLAGS) $(STORE_CFLAGS) $(CFLAGS) -o $@ $< $(STORE_OBJ) $(STORE_LIBS)

$(B)/%: lab/%.c $(STORE_OBJ) $(HEADERS)
	$(QUIET_LINK)$(CC) $(BASE_CFLAGS) $(STORE_CFLAGS) $(CFLAGS) -o $@ $< $(STORE_OBJ) $(STORE_LIBS)

# every package the tests, the demo and the fidelity runs use (quick when present)
deps:
	@tools/deps all

# fio's Debian source is fetched here, never by plain ./configure
configure: deps
	@test -f $(CB)/config.mk || ./configure --fetch-fio-source

# what check, demo, results, bench and fidelity need first
setup: configure
	@$(MAKE) --no-print-directory all

check: setup
	@DBFIO_BUILD=$(abspath $(B)) SANITIZE=$(SANITIZE) tests/run $(CHECK_FLAGS) $(T)

check-quick: all
	@DBFIO_BUILD=$(abspath $(B)) tests/run --quick $(T)

# Debian's python3-flake8 installs into /usr/bin/python3 (python3 on PATH may be another);
# the Python scripts of tools/ and lab/ are found by their #! line (most have no .py)
PY3 ?= /usr/bin/python3
PY_SCRIPTS = $(shell grep -lE '^\#!.*python' tools/* lab/* 2>/dev/null)
SH_SCRIPTS = $(wildcard tests/*.sh tools/*.d/*.sh lab/*.d/*.sh) tests/run .ci/run \
	$(shell grep -lE '^\#!/bin/(ba)?sh' tools/* lab/* 2>/dev/null)
lint:
	@echo '  FLAKE8  ' python tests/lib.py $(PY_SCRIPTS) $(wildcard lab/*.d tools/*.d)
	$(Q)$(PY3) -m flake8 python tests/lib.py $(PY_SCRIPTS) $(wildcard lab/*.d tools/*.d)
	$(Q)$(PY3) -m flake8 --select=E,W,F,C90 python
	@echo '  SHELLCHECK' $(words $(SH_SCRIPTS)) scripts: tests/, tools/, lab/
	$(Q)shellcheck -S warning $(SH_SCRIPTS)

# each mutation of tests/mutants.txt built in a scratch copy, its killing tests run
mutants: setup
	@lab/mutants $(MUTANTS_ARGS)

demo: setup
	@tools/demo

results: setup
	@lab/results

bench: setup
	@lab/bench

fidelity: setup
	@lab/fidelity page $(FIDELITY_ARGS)

# make install / make uninstall (tools/install.d/install.sh, docs/setup.md
# "Installing"): PREFIX and LIBDIR come from configure; Debian packaging
# passes DESTDIR, PREFIX=/usr and LIBDIR=/usr/lib/<multiarch>. A LIBDIR that
# configure defaulted to PREFIX/lib follows a PREFIX given to make.
CONF_PREFIX := $(shell sed -n 's/^PREFIX := //p' $(CB)/config.mk 2>/dev/null)
ifeq ($(origin LIBDIR),file)
ifeq ($(LIBDIR),$(CONF_PREFIX)/lib)
LIBDIR := $(PREFIX)/lib
endif
endif
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share
MANDIR = $(DATADIR)/man
# the engines and libdbfio.so in a folder of dbfio's own: libdbfio is private
# (the engines find it by their $$ORIGIN rpath, never the system's library
# path), and $(LIBDIR)/fio is where a fio built with dynamic engines keeps
# its own fio-<engine>.so
ENGDIR = $(LIBDIR)/dbfio
SHAREDIR = $(DATADIR)/dbfio
# the version: VERSION, and the commit when this is a git checkout
DBFIO_VERSION = $(shell cat VERSION)$(shell git log -1 --format=+git%cd.%h --date=format:%Y%m%d 2>/dev/null)
INSTALL_ENV = DESTDIR='$(DESTDIR)' ENGDIR='$(ENGDIR)' BINDIR='$(BINDIR)' JOBDIR='$(SHAREDIR)/jobs' \
	PYDIR='$(SHAREDIR)/python' MAN7DIR='$(MANDIR)/man7' SHAREDIR='$(SHAREDIR)' B='$(B)' \
	ENGINES='$(ENGINES)' ENGMAN='$(B)/engman' VERSION='$(DBFIO_VERSION)'

# the man page generator: reads an engine's option table (fio's headers, not
# installed), with a stand-in for each of fio's variables an engine may read
$(B)/gen/fio_data.c: tools/install.d/fio-data.sh $(CB)/config.mk
	@mkdir -p $(dir $@)
	$(Q)tools/install.d/fio-data.sh '$(or $(FIO),fio)' >$@.tmp && mv $@.tmp $@
$(B)/engman: man/engman.c $(B)/gen/fio_data.c $(CB)/config.mk
	$(QUIET_LINK)$(CC) $(BASE_CFLAGS) $(FIO_CFLAGS) $(CFLAGS) -rdynamic -o $@ $< $(B)/gen/fio_data.c -ldl

install: all $(B)/engman
	$(Q)$(INSTALL_ENV) tools/install.d/install.sh install

uninstall:
	$(Q)$(INSTALL_ENV) tools/install.d/install.sh uninstall

# dbfio_<version>_<arch>.deb in $(B)/, built by debhelper (debian/) in a copy
# of this tree under $(B)/deb, so the package build never touches build/
deb:
	$(Q)FIO_SRC='$(FIO_SRC)' B='$(B)' VERSION='$(DBFIO_VERSION)' tools/install.d/deb.sh

# every engine, also those a configuration without a library left out
clean:
	rm -rf $(B)/obj $(B)/tests $(B)/*.so $(TOOLS) $(CB)/asan

# The clusters under build/ first, each stopped by its pid files (tools/cluster
# down): the project's (DBFIO_CLUSTER_DIR, default build/cluster) and the
# seed-like one lab/experiment.d/seed003.py starts beside it (cluster-seed003
# next to the first, port DBFIO_CLUSTER_PORT + 100, unless DBFIO_SEED003_* say). A cluster that does not stop
# stops distclean: rm -rf must never run through its mounts.
SEED003_DIR = $${DBFIO_SEED003_CLUSTER_DIR:-$$(dirname "$${DBFIO_CLUSTER_DIR:-$(CB)/cluster}")/cluster-seed003}
SEED003_PORT = $${DBFIO_SEED003_CLUSTER_PORT:-$$(( $${DBFIO_CLUSTER_PORT:-30100} + 100 ))}
distclean:
	tools/cluster down
	DBFIO_CLUSTER_DIR=$(SEED003_DIR) DBFIO_CLUSTER_PORT=$(SEED003_PORT) tools/cluster down
	rm -rf $(CB) config.log
