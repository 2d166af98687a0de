# SPDX-License-Identifier: GPL-2.0
#
# Included by every suite's Makefile.  A suite sets TEST_GEN_PROGS (C
# programs built here) and TEST_PROGS (scripts), run in that order by the VM
# harness (tools/testing/vm/guest.sh asks "make print-tests").

SELFTEST_LIB := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
TOP	?= $(abspath $(SELFTEST_LIB)/../../../../..)
KSRC	?= $(TOP)/.cache/ksrc

CFLAGS	?= -O2 -g
CFLAGS	+= -Wall -Wextra -Werror -D_GNU_SOURCE \
	   -I$(TOP)/include/uapi -I$(TOP)/userspace/lib -I$(SELFTEST_LIB) \
	   -isystem $(KSRC)/tools/testing/selftests
LDLIBS	+= $(TOP)/userspace/lib/libhcn.a -lpthread

all: $(TEST_GEN_PROGS)

$(TEST_GEN_PROGS): %: %.c $(TOP)/userspace/lib/libhcn.a $(wildcard $(SELFTEST_LIB)/*.h) \
		   $(wildcard $(TOP)/include/uapi/linux/*.h)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(TOP)/userspace/lib/libhcn.a:
	$(MAKE) -C $(TOP)/userspace/lib

print-tests:
	@echo $(TEST_GEN_PROGS) $(TEST_PROGS)

clean:
	rm -f $(TEST_GEN_PROGS)

.PHONY: all print-tests clean
