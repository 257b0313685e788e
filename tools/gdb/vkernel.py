# gdb commands for a vkernel, live (gdb -p PID) or from a core file
# (gdb build/vkernel core): the process list, a process's map and the
# vpagetable walk of an address, read from the kernel's own structures
# with the debug information of the binary.
#
#   gdb -p $(pidof vkernel) -x tools/gdb/vkernel.py
#   (gdb) vk-ps
#   (gdb) vk-map 1
#   (gdb) vk-pte 1 0x401000
#
# Physical addresses are offsets in the kernel's RAM, which is mapped at
# physmem.base in the vkernel process; a core holds it (the RAM is a
# shared memory file, which the kernel and gcore dump by default).

import gdb

VPTE_V, VPTE_RW, VPTE_U, VPTE_A, VPTE_M, VPTE_PS = 0x1, 0x2, 0x4, 0x20, 0x40, 0x80
VPTE_NX = 1 << 63
VPTE_FRAME = 0x000ffffffffff000
TDS = {0: "new", 1: "runq", 2: "run", 3: "sleep", 4: "dead"}


def tailq(head, field):
    """The elements of a TAILQ head (a gdb.Value of the head struct)."""
    elm = head["tqh_first"]
    while int(elm) != 0:
        yield elm
        elm = elm[field]["tqe_next"]


def procs():
    pidhash = gdb.parse_and_eval("pidhash")
    lo, hi = pidhash.type.range()
    out = []
    for i in range(lo, hi + 1):
        out.extend(tailq(pidhash[i], "p_hash"))
    return sorted(out, key=lambda p: int(p["p_pid"]))


def pfind(pid):
    for p in procs():
        if int(p["p_pid"]) == pid:
            return p
    raise gdb.GdbError("no process %d" % pid)


def cstr(v):
    """A char array's text up to its NUL (a name may hold any bytes)."""
    try:
        raw = bytes(gdb.selected_inferior().read_memory(v.address, v.type.sizeof))
    except gdb.error:
        return "?"
    return raw.split(b"\0")[0].decode("latin-1")


def read64(addr):
    mem = gdb.selected_inferior().read_memory(addr, 8)
    return int.from_bytes(bytes(mem), "little")


class VkPs(gdb.Command):
    """vk-ps: the vkernel's processes and threads: pid, tid, parent,
state, what a sleeping thread waits on, the CPU of a running one."""

    def __init__(self):
        super().__init__("vk-ps", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        print("%5s %5s %5s %-6s %-8s %3s %s" % ("PID", "TID", "PPID", "STATE",
                                               "WMESG", "CPU", "COMM"))
        for p in procs():
            ppid = int(p["p_pptr"]["p_pid"]) if int(p["p_pptr"]) else 0
            if int(p["p_state"]) == 2:  # PRS_ZOMBIE
                print("%5d %5s %5d %-6s %-8s %3s %s" % (int(p["p_pid"]), "-", ppid,
                                                       "zomb", "-", "-", cstr(p["p_comm"])))
                continue
            for lp in tailq(p["p_lwps"], "lwp_link"):
                td = lp["lwp_thread"]
                state, wmesg, cpu = "-", "-", "-"
                if int(td):
                    state = TDS.get(int(td["td_state"]), "?")
                    if state == "sleep" and int(td["td_wmesg"]):
                        wmesg = td["td_wmesg"].string()
                    if state == "run" and int(td["td_cpu"]):
                        cpu = str(int(td["td_cpu"]["id"]))
                print("%5d %5d %5d %-6s %-8s %3s %s" % (int(p["p_pid"]), int(lp["lwp_tid"]),
                                                       ppid, state, wmesg, cpu,
                                                       cstr(lp["lwp_comm"])))


class VkMap(gdb.Command):
    """vk-map PID: the vm_map entries of a process: range, protection,
flags (p private, s shared, n needs copy), object and what backs it."""

    def __init__(self):
        super().__init__("vk-map", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if len(argv) != 1:
            raise gdb.GdbError("usage: vk-map PID")
        p = pfind(int(argv[0], 0))
        vm = p["p_vmspace"]
        if not int(vm):
            raise gdb.GdbError("no address space")
        header = vm["vm_map"]["header"]
        e = header["next"]
        end = header.address
        print("%-16s %-16s %-4s %-3s %s" % ("START", "END", "PROT", "FLG", "OBJECT"))
        while int(e) != int(end):
            prot = int(e["protection"])
            flags = int(e["eflags"])
            objs = []
            obj = e["object"]
            while int(obj) and len(objs) < 8:
                kind = "vnode" if int(obj["type"]) == 1 else "anon"
                objs.append("%#x %s" % (int(obj), kind))
                obj = obj["backing_object"]
            print("%016x %016x %s%s%s  %s%s  %s" % (
                int(e["start"]), int(e["end"]),
                "r" if prot & 1 else "-", "w" if prot & 2 else "-", "x" if prot & 4 else "-",
                "p" if flags & 1 else "s", "n" if flags & 2 else "-",
                " -> ".join(objs) if objs else "none"))
            e = e["next"]


class VkPte(gdb.Command):
    """vk-pte PID ADDR: the vpagetable walk of ADDR in a process, every
level, with the valid, writable, user, accessed (A) and modified (M) bits."""

    def __init__(self):
        super().__init__("vk-pte", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        argv = gdb.string_to_argv(arg)
        if len(argv) != 2:
            raise gdb.GdbError("usage: vk-pte PID ADDR")
        p = pfind(int(argv[0], 0))
        va = int(argv[1], 16)
        base = int(gdb.parse_and_eval("physmem.base"))
        size = int(gdb.parse_and_eval("physmem.size"))
        table = int(p["p_vmspace"]["vm_pmap"]["pm_root"])
        print("va %#x, pid %d" % (va, int(p["p_pid"])))
        for level, name in ((3, "PML4"), (2, "PDPT"), (1, "PD"), (0, "PT")):
            if table >= size:
                raise gdb.GdbError("table %#x is outside RAM" % table)
            idx = (va >> (12 + 9 * level)) & 511
            pte = read64(base + table + 8 * idx)
            bits = "".join(s for b, s in ((VPTE_V, " V"), (VPTE_RW, " RW"), (VPTE_U, " U"),
                                          (VPTE_A, " A"), (VPTE_M, " M"), (VPTE_PS, " PS"),
                                          (VPTE_NX, " NX")) if pte & b)
            print("  %-4s %#10x[%3d] = %016x%s" % (name, table, idx, pte, bits))
            if not pte & VPTE_V:
                print("  not mapped")
                return
            if level == 0 or pte & VPTE_PS:
                mask = (1 << (12 + 9 * level)) - 1
                print("  page %#x, byte at pa %#x" % (pte & VPTE_FRAME & ~mask,
                                                     (pte & VPTE_FRAME & ~mask) | (va & mask)))
                return
            table = pte & VPTE_FRAME


VkPs()
VkMap()
VkPte()
