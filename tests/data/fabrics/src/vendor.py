#!/usr/bin/env python3
"""vendor.py OUTDIR: write the fabrics of tests/data/fabrics that are shaped
after published descriptions rather than captured from ibsim, in the
format ibnetdiscover prints (infiniband-diags' ibnetdiscover.c, out_switch(),
out_ca(), out_switch_port(), out_ca_port(); -g adds the chassis lines):

  edr-6x.ibnd       a SwitchIB EDR tree: 2 spines, 4 leaves, six cables from
                    every leaf to every spine, 24 hosts a leaf (one on a DDR
                    cable), every switch with the vendor's default
                    description; `ibnetdiscover -g` with a failed port query
                    printed among the records (output and errors in one file)
  isr9096.ibnd      a Voltaire ISR9096-style chassis (2 spine, 4 line chips,
                    6 internal cables from each line chip to each spine, [ext
                    N] front ports) with 32 hosts, as `ibnetdiscover -g`
                    groups it: Chassis, Spine Nodes, Line Nodes, Non-Chassis
  ndr-noblank.ibnd  a Quantum-2 NDR tree: 2 spines, 2 leaves, 4 hosts a leaf
                    on split 2x NDR ports, one host at 4x HDR, one 4x XDR
                    spine cable, printed without blank lines between records
"""
import os
import sys

MLX, VTR = 0x2c9, 0x8f1


class Fabric:
    def __init__(self):
        self.nodes = []    # dicts: kind, guid, nports, desc, lid, ports {p: (node, q, rate)}
        self.by_guid = {}

    def node(self, kind, guid, nports, desc, lid, vend, dev, sysimg=None, **kw):
        n = dict(kind=kind, guid=guid, nports=nports, desc=desc, lid=lid, vend=vend, dev=dev,
                 sysimg=sysimg if sysimg is not None else guid, ports={}, ext={}, **kw)
        self.nodes.append(n)
        self.by_guid[guid] = n
        return n

    def link(self, a, pa, b, pb, rate):
        a["ports"][pa] = (b, pb, rate)
        b["ports"][pb] = (a, pa, rate)


def nid(n):
    return '"%s-%016x"' % ("S" if n["kind"] == "sw" else "H", n["guid"])


def pguid(n, p):
    return n["guid"] if n["kind"] == "sw" else n["guid"] + p


def ext(n, p):
    e = n["ext"].get(p)
    return "[ext %d]" % e if e else ""


def sw_record(n, group):
    out = ["vendid=0x%x" % n["vend"], "devid=0x%x" % n["dev"]]
    chassis = n.get("chassis")
    line = "sysimgguid=0x%x" % n["sysimg"]
    if group and chassis:
        line += "\t\t# Chassis %d" % chassis
    out.append(line)
    line = "switchguid=0x%x(%x)" % (n["guid"], n["guid"])
    if group:
        line += "\t# " + (n.get("slot", "") or "")
    out.append(line)
    out.append('Switch\t%d %s\t\t# "%s" base port 0 lid %d lmc 0' %
               (n["nports"], nid(n), n["desc"], n["lid"]))
    for p in sorted(n["ports"]):
        b, q, rate = n["ports"][p]
        s = "[%d]%s\t%s[%d]%s" % (p, ext(n, p), nid(b), q, ext(b, q))
        if b["kind"] != "sw":
            s += "(%x) " % pguid(b, q)
        s += '\t\t# "%s" lid %d %s' % (b["desc"], b["lid"], rate)
        out.append(s)
    return out


def ca_record(n):
    out = ["vendid=0x%x" % n["vend"], "devid=0x%x" % n["dev"],
           "sysimgguid=0x%x" % n["sysimg"], "caguid=0x%x" % n["guid"],
           'Ca\t%d %s\t\t# "%s"' % (n["nports"], nid(n), n["desc"])]
    for p in sorted(n["ports"]):
        b, q, rate = n["ports"][p]
        out.append('[%d](%x) \t%s[%d]%s\t\t# lid %d lmc 0 "%s" lid %d %s' %
                   (p, pguid(n, p), nid(b), q, ext(b, q), n["lid"], b["desc"], b["lid"], rate))
    return out


def header(date, first):
    return ["#", "# Topology file: generated on %s" % date, "#",
            "# Initiated from node %016x port %016x" % (first["guid"], first["guid"] + 1)]


def edr_tree():
    f = Fabric()
    desc = "SwitchIB Mellanox Technologies"
    lid = [1]

    def nl():
        lid[0] += 1
        return lid[0] - 1
    spines = [f.node("sw", 0x7cfe900300a5a2c0 + 0x100 * i, 36, desc, nl(), MLX, 0xcb20)
              for i in range(2)]
    leaves = [f.node("sw", 0x248a070300f6c040 + 0x40 * i, 36, desc, nl(), MLX, 0xcb20)
              for i in range(4)]
    for i, leaf in enumerate(leaves):
        for s, spine in enumerate(spines):
            for k in range(6):
                f.link(leaf, 25 + 6 * s + k, spine, 6 * i + 1 + k, "4xEDR")
    hosts = []
    for i, leaf in enumerate(leaves):
        for h in range(24):
            no = 24 * i + h + 1
            ca = f.node("ca", 0x248a0703005d1c38 + 0x10 * no, 2, "node%03d HCA-1" % no, nl(),
                        MLX, 0x1013, sysimg=0x248a0703005d1c38 + 0x10 * no + 3)
            f.link(leaf, h + 1, ca, 1, "4xDDR" if no == 55 else "4xEDR")
            hosts.append(ca)
    out = header("Tue Mar  7 10:12:33 2023", hosts[0]) + ["", "Non-Chassis Nodes", ""]
    for n in spines + leaves:
        out += sw_record(n, True) + [""]
    for i, n in enumerate(hosts):
        out += ca_record(n) + [""]
        if i == 40:
            out.append("ibwarn: [28413] mad_rpc: _do_madrpc failed; dport (DR path slid 0; "
                       "dlid 0; 0,1,27,3)")
            out.append("src/query_smp.c:228; mad_rpc failed; dport (DR path slid 0; dlid 0; "
                       "0,1,27,3)")
    return out


def isr9096():
    f = Fabric()
    chassis = 0x8f104004120a8
    lid = [1]

    def nl():
        lid[0] += 1
        return lid[0] - 1
    spines = [f.node("sw", chassis + 1 + i, 24, "ISR9096 Voltaire sFB-4", nl(), VTR, 0x5a32,
                     sysimg=chassis, chassis=1, slot="ISR9096 Spine %d Chassis 1" % (i + 1))
              for i in range(2)]
    lines = [f.node("sw", chassis + 0x10 + i, 24, "ISR9096 Voltaire sLB-24", nl(), VTR,
                    0x5a30, sysimg=chassis, chassis=1,
                    slot="ISR9096 Line %d Chassis 1" % (i + 1)) for i in range(4)]
    for i, line in enumerate(lines):
        for s, spine in enumerate(spines):
            for k in range(6):
                f.link(line, 13 + 6 * s + k, spine, 6 * i + 1 + k, "4xDDR")
        for p in range(1, 13):
            line["ext"][p] = 12 * i + p
    hosts = []
    for i, line in enumerate(lines):
        for h in range(8):
            no = 8 * i + h + 1
            ca = f.node("ca", 0x2c9020021ab00 + 0x10 * no, 2, "cn%02d HCA-1" % no, nl(), MLX,
                        0x6274, sysimg=0x2c9020021ab00 + 0x10 * no + 3)
            f.link(line, h + 1, ca, 1, "4xDDR")
            hosts.append(ca)
    out = header("Thu Sep 18 16:41:02 2008", hosts[0])
    out += ["", "Chassis 1 (guid 0x%x)" % chassis, "", "# Spine Nodes"]
    for n in spines:
        out += [""] + sw_record(n, True)
    out += ["", "# Line Nodes"]
    for n in lines:
        out += [""] + sw_record(n, True)
    out += ["", "# Chassis Switches", "", "# Chassis CAs", "", "Non-Chassis Nodes", ""]
    for n in hosts:
        out += ca_record(n) + [""]
    return out


def ndr_noblank():
    f = Fabric()
    lid = [1]

    def nl():
        lid[0] += 1
        return lid[0] - 1
    spines = [f.node("sw", 0xfc6a1c0300e7a240 + 0x40 * i, 64, "ndr-spine%d:MQM9700/U1" % (i + 1),
                     nl(), MLX, 0xd2f2) for i in range(2)]
    leaves = [f.node("sw", 0xfc6a1c0300e7b240 + 0x40 * i, 64, "ndr-leaf%d:MQM9700/U1" % (i + 1),
                     nl(), MLX, 0xd2f2) for i in range(2)]
    for i, leaf in enumerate(leaves):
        for s, spine in enumerate(spines):
            for k in range(2):
                rate = "4xXDR" if (i, s, k) == (1, 1, 1) else "4xNDR"
                f.link(leaf, 33 + 2 * s + k, spine, 2 * i + 1 + k, rate)
    hosts = []
    for i, leaf in enumerate(leaves):
        for h in range(4):
            no = 4 * i + h + 1
            ca = f.node("ca", 0xb83fd20300a1c000 + 0x10 * no, 1, "gpu%02d mlx5_%d" % (no, h), nl(),
                        MLX, 0x1021)
            f.link(leaf, h + 1, ca, 1, "4xHDR" if no == 8 else "2xNDR")
            hosts.append(ca)
    out = header("Mon Feb 12 09:30:11 2024", hosts[0]) + [""]
    for n in spines + leaves:
        out += sw_record(n, False)
    for n in hosts:
        out += ca_record(n)
    return out


def main():
    outdir = sys.argv[1]
    for name, make in (("edr-6x.ibnd", edr_tree), ("isr9096.ibnd", isr9096),
                       ("ndr-noblank.ibnd", ndr_noblank)):
        with open(os.path.join(outdir, name), "w") as fp:
            fp.write("\n".join(make()) + "\n")


main()
