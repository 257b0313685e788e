# lwIP's library, built from the source Debian's package unpacked in
# LWIP_DIR (the Makefile's $(BUILD)/lwip-src) with net/lwipopts/lwipopts.h,
# into OUT/liblwip.a: lwIP's own file lists, and the package's pthread
# port (port/sys_arch.c, port/include/arch/).  Run by the Makefile.
LWIPDIR := $(LWIP_DIR)/src
include $(LWIPDIR)/Filelists.mk

SRCS := $(COREFILES) $(CORE4FILES) $(CORE6FILES) $(APIFILES) \
	$(LWIPDIR)/netif/ethernet.c $(LWIP_DIR)/port/sys_arch.c
OBJS := $(patsubst $(LWIP_DIR)/%.c,$(OUT)/%.o,$(SRCS))
# lwIP's code is not held to the kernel's warnings; it gets no sanitizer
# either (as Debian's library had none).
CFLAGS := -std=gnu11 $(OPT) -g -fno-omit-frame-pointer -D_GNU_SOURCE -MMD -MP \
	-Inet/lwipopts -I$(LWIP_DIR)/src/include -I$(LWIP_DIR)/port/include

$(OUT)/liblwip.a: $(OBJS)
	rm -f $@
	ar rcs $@ $^

$(OUT)/%.o: $(LWIP_DIR)/%.c net/lwipopts/lwip.mk
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

-include $(OBJS:.o=.d)
