# vkernel: a virtual kernel for Linux x86-64 hosts.
#
#   make            build build/vkernel
#   make run        build and boot it
#   make run-debian build and boot a Debian bookworm root into bash
#   make test       build and run the unit tests
#   make test-threads  the thread tests and all stress-ng stressors on -n 1 and -n 2
#                   until threads work: tests/guest/threads/ and the
#                   thread stressors of stress-ng (tests/system/stressng.t)
#   make asan       the same tests under AddressSanitizer and UBSan
#   make fuzz       trinity, the system-call fuzzer, inside as nobody
#                   (FUZZ_SECONDS, FUZZ_SEED; FUZZ_ASAN=1 under ASan)
#   make docs/syscalls.md   the system-call list, from sys/syscalls.tbl.h
#   make bench      the host-layer, kernel, storage, thread and network benchmarks, beside
#                   native and User-Mode Linux (figures, never asserted)
#   make fuzz-abi   the trap-ABI fuzzers at length, under ASan/UBSan
#   make fuzz-images  1,000 damaged ext2 images, under ASan/UBSan
#   make fuzz-durability  kill -9 during fsync loops, 100 times
#                   (FUZZ_SEED: the first seed; each run is reproducible)
#   make install    build/vkernel to $(DESTDIR)$(PREFIX)/bin and its manual
#                   page docs/vkernel.8 to $(DESTDIR)$(PREFIX)/share/man/man8
#                   (PREFIX=/usr/local); make uninstall removes them

CC       ?= cc
BUILD    ?= build
OPT      ?= -O2
# Frame pointers: ddb's trace and panic walk the kernel's stacks by
# them (kern/kern_debug.c); their cost is within this host's noise
# (docs/ddb.md).
# TRACE=1: the stage trace (host/trace.h), in the vkernel and its stub.
TRACE_CFLAGS := $(if $(filter 1,$(TRACE)),-DVK_TRACE)
CFLAGS   := -std=gnu11 -Wall -Wextra -Werror $(OPT) -g -fno-omit-frame-pointer \
	    -I. -MMD -MP -D_GNU_SOURCE $(SANFLAGS) $(TRACE_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  := $(SANFLAGS)
LDLIBS   := -lpthread -lrt

# lwIP 2.1, built here from Debian's source package (apt-get source lwip,
# unpacked by dpkg-source) with our options, net/lwipopts/lwipopts.h:
# Debian's liblwip fixes TCP's window at 64 KiB (docs/net.md).  Its
# headers only for the files that call it, where they cannot clash with
# the kernel's.
LWIP_DIR := $(BUILD)/lwip-src
LWIP_LIB := $(BUILD)/lwip/liblwip.a
LWIP_CFLAGS := -Inet/lwipopts -I$(LWIP_DIR)/src/include -I$(LWIP_DIR)/port/include

# The stub is freestanding: no libc, no stack protector, no SSE, no
# implicit memcpy/memset calls, every system call inline in its text.
STUB_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -I. -ffreestanding \
	-fno-stack-protector -fno-builtin -fno-tree-loop-distribute-patterns \
	-fpie -fno-plt -fno-asynchronous-unwind-tables -fcf-protection=none \
	-mgeneral-regs-only -mno-red-zone $(TRACE_CFLAGS)
STUB_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none \
	-Wl,-T,host/trap/stub/stub.ld -Wl,-z,noexecstack

HOST_SRCS := $(wildcard host/*.c) $(wildcard host/trap/*.c)
KERNEL_SRCS := $(filter-out boot/main.c,$(wildcard kern/*.c vm/*.c fs/*.c fs/*/*.c dev/*.c net/*.c \
	proc/*.c sys/*.c boot/*.c ddb/*.c)) \
	$(wildcard kern/*.S)
# libslirp (Debian's libslirp-dev) for host/net_slirp.c, -I slirp.
LDLIBS   += -lslirp

TEST_SRCS := $(wildcard tests/unit/*.c) $(wildcard tests/unit/*.S)
BENCH_SRCS := bench/hostbench.c $(wildcard bench/*.S)

obj = $(patsubst %,$(BUILD)/%.o,$(basename $(1)))

CORE_OBJS := $(call obj,$(HOST_SRCS)) $(BUILD)/host/trap/stub_image.o \
	$(BUILD)/kern/vdso/vdso_image.o $(call obj,$(KERNEL_SRCS))
KERN_OBJS := $(BUILD)/boot/main.o
TEST_OBJS := $(call obj,$(TEST_SRCS))
BENCH_OBJS := $(call obj,$(BENCH_SRCS)) $(BUILD)/tests/unit/vmtest.o
STUB_OBJS := $(BUILD)/stub/stub_entry.o $(BUILD)/stub/stub.o

.PHONY: all run run-debian test test-threads asan fuzz bench clean fuzz-abi fuzz-images \
	fuzz-durability fuzz-abi-run fuzz-images-run install uninstall
all: $(BUILD)/vkernel

$(BUILD)/vkernel: $(KERN_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unittest: $(TEST_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/hostbench: $(BENCH_OBJS) $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# After the objects in $^, before the C library.
$(BUILD)/vkernel $(BUILD)/unittest $(BUILD)/hostbench: $(LWIP_LIB)

# lwIP's source: the package's files in $(BUILD)/lwip-deb, unpacked with
# Debian's patches applied (needs deb-src in apt's sources and dpkg-dev).
$(LWIP_DIR)/.unpacked:
	rm -rf $(BUILD)/lwip-deb $(LWIP_DIR)
	mkdir -p $(BUILD)/lwip-deb
	cd $(BUILD)/lwip-deb && apt-get source --download-only -qq lwip >/dev/null || \
	    { echo "lwIP: apt-get source lwip failed: deb-src lines in apt's sources, then apt-get update" >&2; exit 1; }
	dpkg-source -q -x $(BUILD)/lwip-deb/lwip_*.dsc $(LWIP_DIR)
	touch $@

$(LWIP_LIB): $(LWIP_DIR)/.unpacked net/lwipopts/lwipopts.h net/lwipopts/lwip.mk
	$(MAKE) -f net/lwipopts/lwip.mk LWIP_DIR=$(LWIP_DIR) OUT=$(BUILD)/lwip \
	    CC="$(CC)" OPT="$(OPT)"

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/net/inet_%.o $(BUILD)/net/if_%.o: CFLAGS += $(LWIP_CFLAGS)
# Any kernel file may include lwIP's headers (with LWIP_CFLAGS): they
# must be there before the first compiles.
$(call obj,$(KERNEL_SRCS)): | $(LWIP_DIR)/.unpacked

$(BUILD)/%.o: %.S
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# The stub, built freestanding and embedded in the vkernel.
$(BUILD)/stub/%.o: host/trap/stub/%.c
	@mkdir -p $(dir $@)
	$(CC) $(STUB_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/stub/%.o: host/trap/stub/%.S
	@mkdir -p $(dir $@)
	$(CC) $(STUB_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/vkstub: $(STUB_OBJS) host/trap/stub/stub.ld
	$(CC) $(STUB_CFLAGS) $(STUB_LDFLAGS) -o $@ $(STUB_OBJS)
	@# No call may leave the stub's text: the filters trust it alone.
	@! objdump -d $@ | grep -E 'call +\*|call .*<[^>]*@plt>' >/dev/null

$(BUILD)/host/trap/stub_image.o: host/trap/stub_image.S $(BUILD)/vkstub
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DSTUB_PATH='"$(BUILD)/vkstub"' -c -o $@ $<

# The vDSO: position-independent code every process maps, built as a
# shared object with no relocations (the kernel maps it anywhere
# unchanged) and embedded in the vkernel.
VDSO_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -I. -fPIC -ffreestanding \
	-fno-stack-protector -fno-builtin -fno-asynchronous-unwind-tables \
	-fcf-protection=none -mgeneral-regs-only -mno-red-zone -fvisibility=default
VDSO_LDFLAGS := -nostdlib -shared -Wl,-T,kern/vdso/vdso.lds -Wl,-soname,linux-vdso.so.1 \
	-Wl,--hash-style=both -Wl,--build-id=none -Wl,-Bsymbolic -Wl,-z,noexecstack \
	-Wl,-z,max-page-size=4096

$(BUILD)/vdso/vdso.o: kern/vdso/vdso.c
	@mkdir -p $(dir $@)
	$(CC) $(VDSO_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/vdso.so: $(BUILD)/vdso/vdso.o kern/vdso/vdso.lds
	$(CC) $(VDSO_CFLAGS) $(VDSO_LDFLAGS) -o $@ $(BUILD)/vdso/vdso.o
	@# Mapped anywhere as is: no relocations, no undefined symbols.
	@! readelf -r $@ | grep -q 'Relocation section'
	@! nm -u $@ | grep -q .
	@test $$(stat -c %s $@) -le 8192

$(BUILD)/kern/vdso/vdso_image.o: kern/vdso/vdso_image.S $(BUILD)/vdso.so
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DVDSO_PATH='"$(BUILD)/vdso.so"' -c -o $@ $<

# The list of system calls, generated from the table (tools/sysdoc.c);
# tests/system/syscalls_doc.t checks that the committed one is current.
$(BUILD)/sysdoc: tools/sysdoc.c sys/syscalls.tbl.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

docs/syscalls.md: $(BUILD)/sysdoc
	$(BUILD)/sysdoc > $@

# The default root: busybox-static on an ext2 image (kept across runs);
# an initramfs for booting without a disk.
$(BUILD)/root.img: tools/mkroot
	@mkdir -p $(BUILD)
	tools/mkroot $@

$(BUILD)/root.cpio: tools/mkinitramfs
	@mkdir -p $(BUILD)
	tools/mkinitramfs $@

run: $(BUILD)/vkernel $(BUILD)/root.img
	$(BUILD)/vkernel $(VKFLAGS) -r $(BUILD)/root.img -- /bin/sh -i

# A Debian bookworm root (tools/mkroot --debian: mmdebstrap, its tarball
# kept in build/), booted into a login bash by its /sbin/init.
$(BUILD)/debian.img: tools/mkroot
	@mkdir -p $(BUILD)
	tools/mkroot --debian $@

run-debian: $(BUILD)/vkernel $(BUILD)/debian.img
	$(BUILD)/vkernel -m 1g $(VKFLAGS) -r $(BUILD)/debian.img

test: $(BUILD)/unittest $(BUILD)/vkernel $(BUILD)/sysdoc
	tests/run $(BUILD)

# Both parts run; either failing fails the target at the end.
test-threads: $(BUILD)/vkernel
	st=0; BUILD=$(BUILD) sh tests/guest/threads/run.sh || st=1; \
	    STRESSNG_SET=all STRESSNG_NCPUS="1 2" BUILD=$(BUILD) \
	    sh tests/system/run.sh stressng || st=1; exit $$st

ASAN_VARS := BUILD=build-asan OPT=-O1 \
	SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"

ASAN_MAKE := $(MAKE) $(ASAN_VARS)

asan:
	$(ASAN_MAKE) test

# trinity as nobody inside vkernel; see tests/fuzz/trinity.sh for the
# FUZZ_* knobs (FUZZ_SECONDS, FUZZ_SEED...); FUZZ_ASAN=1 under ASan/UBSan.
ifeq ($(FUZZ_ASAN),1)
fuzz:
	$(ASAN_MAKE) FUZZ_ASAN=0 fuzz
else
fuzz: $(BUILD)/vkernel
	BUILD=$(BUILD) tests/fuzz/trinity.sh
endif

# Fuzzing, bounded and seeded: the same FUZZ_SEED gives the same inputs.
FUZZ_SEED ?= 1
FUZZ_ABI_CHILDREN ?= 3000
FUZZ_VPT_ROUNDS ?= 20000
FUZZ_IMAGES ?= 1000
FUZZ_KILLS ?= 100

fuzz-abi:
	$(ASAN_MAKE) fuzz-abi-run

fuzz-abi-run: $(BUILD)/unittest $(BUILD)/vkernel
	VPTFUZZ_SEED=$(FUZZ_SEED) VPTFUZZ_ROUNDS=$(FUZZ_VPT_ROUNDS) \
	    $(BUILD)/unittest vptfuzz
	ABIFUZZ_SEEDS="$(shell seq $(FUZZ_SEED) $$(($(FUZZ_SEED) + 4)))" \
	    ABIFUZZ_COUNT=$(FUZZ_ABI_CHILDREN) BUILD=$(BUILD) \
	    sh tests/system/run.sh abifuzz

fuzz-images:
	$(ASAN_MAKE) fuzz-images-run

fuzz-images-run: $(BUILD)/vkernel
	BUILD=$(BUILD) sh tests/storage/imgfuzz.sh $(FUZZ_SEED) $(FUZZ_IMAGES) 2

fuzz-durability: $(BUILD)/vkernel
	BUILD=$(BUILD) sh tests/storage/durability.sh $(FUZZ_SEED) $(FUZZ_KILLS)

$(BUILD)/bootwatch: $(BUILD)/bench/bootwatch.o
	$(CC) $(LDFLAGS) -o $@ $^

bench: $(BUILD)/hostbench $(BUILD)/vkernel $(BUILD)/bootwatch
	$(BUILD)/hostbench $(BENCHFLAGS) > $(BUILD)/hostbench.out
	@cat $(BUILD)/hostbench.out
	@# every benchmark runs; any failing fails make bench at the end
	st=0; BUILD=$(BUILD) bench/kernbench.sh || st=1; \
	    BUILD=$(BUILD) bench/storebench.sh || st=1; \
	    BUILD=$(BUILD) bench/threadbench.sh || st=1; \
	    BUILD=$(BUILD) bench/smpbench.sh || st=1; \
	    BUILD=$(BUILD) bench/filebench.sh || st=1; \
	    BUILD=$(BUILD) bench/netbench.sh || st=1; exit $$st

# The stub and the vDSO are inside the binary: it and its page are all.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man

install: $(BUILD)/vkernel
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(BUILD)/vkernel $(DESTDIR)$(BINDIR)/vkernel
	install -m 644 docs/vkernel.8 $(DESTDIR)$(MANDIR)/man8/vkernel.8

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/vkernel $(DESTDIR)$(MANDIR)/man8/vkernel.8

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
