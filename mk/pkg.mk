# mk/pkg.mk: installing and releasing (docs/install.md).
#
#   make install      cuckoo.so, libcuckoo.a, cuckoo.h and cuckoo.pc into
#                     DESTDIR + PREFIX (default /usr/local); the loadable
#                     extension goes to EXTDIR, by default the directory
#                     where dlopen() looks for a bare name, so that
#                     `.load cuckoo` works without a path
#   make uninstall    removes exactly those files (same variables)
#   make dist         cuckoo-VERSION.tar.gz: the one-file amalgamation
#                     cuckoo.c with cuckoo.h, README, LICENSE, the demo and
#                     cuckoo.dll, the Windows build (mk/windows.mk; installs
#                     Debian's mingw-w64 cross compiler)
#   make test-install a staged install (DESTDIR) checked file by file, then
#                     a real one: bare-name loading in the sqlite3 shell,
#                     Python and Node, a program built with pkg-config, then
#                     uninstall leaving the directories as they were
#                     (needs root or sudo; part of `make test`)
#   make test-dist    the tarball unpacked and built with the one command of
#                     its README: the demo runs, BLOBs are byte-identical to
#                     cuckoo.so's, only the entry point is exported (part of
#                     `make test`)

PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# dlopen() finds a file named without a slash only in the loader's own
# directories (ldconfig's cache lists lib*.so files only): on Debian the
# multiarch directory, as for Debian's own mod_spatialite.
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)
SYSLIBDIR  := $(if $(MULTIARCH),/usr/lib/$(MULTIARCH),/usr/lib)
EXTDIR     ?= $(if $(filter /usr /usr/local,$(PREFIX)),$(SYSLIBDIR),$(LIBDIR))
VERSION    := $(shell sed -n 's/^\#define CUCKOO_VERSION "\(.*\)"$$/\1/p' ext/cuckoo.h)
DISTNAME   := cuckoo-$(VERSION)

.PHONY: install uninstall dist test-install test-dist

build/cuckoo.pc: dist/cuckoo.pc.in ext/cuckoo.h
	@mkdir -p build
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@EXTDIR@|$(EXTDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' $< > $@

# The .pc file depends on the variables: always written anew.
## install: cuckoo.so, libcuckoo.a, cuckoo.h, cuckoo.pc into DESTDIR+PREFIX
install: cuckoo.so libcuckoo.a
	@rm -f build/cuckoo.pc && $(MAKE) --no-print-directory build/cuckoo.pc
	install -d $(DESTDIR)$(EXTDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 cuckoo.so $(DESTDIR)$(EXTDIR)/cuckoo.so
	install -m 0644 libcuckoo.a $(DESTDIR)$(LIBDIR)/libcuckoo.a
	install -m 0644 ext/cuckoo.h $(DESTDIR)$(INCLUDEDIR)/cuckoo.h
	install -m 0644 build/cuckoo.pc $(DESTDIR)$(PKGCONFIGDIR)/cuckoo.pc

# The pkgconfig directory is removed too when it is left empty (install
# may have created it); the others are standard directories.
## uninstall: remove exactly the files install wrote (same variables)
uninstall:
	rm -f $(DESTDIR)$(EXTDIR)/cuckoo.so $(DESTDIR)$(LIBDIR)/libcuckoo.a \
	  $(DESTDIR)$(INCLUDEDIR)/cuckoo.h $(DESTDIR)$(PKGCONFIGDIR)/cuckoo.pc
	-rmdir $(DESTDIR)$(PKGCONFIGDIR) 2>/dev/null || true

## dist: cuckoo-VERSION.tar.gz, the one-file amalgamation and its README
dist: windows-deps
	@$(MAKE) --no-print-directory $(DISTNAME).tar.gz

$(DISTNAME).tar.gz: $(EXTSRC) $(EXTHDR) dist/amalgamate.sh dist/README.md \
                    build/windows/cuckoo.dll \
                    LICENSE sql/demo.sql
	@rm -rf build/dist && mkdir -p build/dist/$(DISTNAME)
	sh dist/amalgamate.sh > build/dist/$(DISTNAME)/cuckoo.c
	cp ext/cuckoo.h LICENSE sql/demo.sql build/windows/cuckoo.dll build/dist/$(DISTNAME)/
	sed 's|@VERSION@|$(VERSION)|g' dist/README.md > build/dist/$(DISTNAME)/README.md
	tar -C build/dist --owner=0 --group=0 --numeric-owner --sort=name \
	  -czf $@ $(DISTNAME)
	@echo "wrote $@"

## test-dist: the tarball unpacked and built as its README says, checked
test-dist: build-deps windows-deps cuckoo.so
	@$(MAKE) --no-print-directory $(DISTNAME).tar.gz
	sh tests/dist_test.sh $(DISTNAME).tar.gz ./cuckoo.so

## test-install: a staged install, then a real one loaded by bare name, then uninstall
test-install: build-deps cuckoo.so libcuckoo.a
	@sh tests/deps.sh python3 nodejs pkg-config
	@command -v npm >/dev/null || sh tests/deps.sh npm
	sh tests/install_test.sh
