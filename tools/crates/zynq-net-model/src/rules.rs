//! Every check the board loader runs, one [`Rule`] each, with a stable id.
//!
//! Each diagnostic names the rule it comes from (`error[ring-limit]: ...`),
//! so a user can look the rule up, a test can assert it and a script can
//! match it without parsing message wording (the model: just's
//! `src/compile_error_kind.rs`). The rule table of docs/board-format.md is
//! generated from [`Rule::ALL`] (`zynq-net rules --markdown`), and every
//! rule has a failing case in
//! tools/crates/zynq-net-cli/tests/fixtures/bad-cases.txt: a few exact edits
//! planting its fault in a base board, and its rule id, message and
//! position (`at` text). The cli crate's rule-coverage test fails on a rule
//! without one, and the model crate's branch-coverage test
//! (src/branch_coverage.rs) on a *reporting site* without one: every place
//! the loader writes `Rule::X` (one per driver or flavour arm, say) must be
//! reached by some case. A new rule: add its variant here, then a case
//! there for each place that reports it (copy one of a similar rule; the
//! file's header gives the format).
//!
//! Ids are kebab-case and stable: a rule may change its message or hint,
//! never its id. One rule is one check; the same check applied to several
//! keys (e.g. an RFS table size, global or per queue) is one rule.

/// Severity of a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The board is invalid; nothing is generated.
    Error,
    /// The board is valid but something deserves attention.
    Warning,
}

macro_rules! rules {
    ($( $variant:ident = $id:literal, $sev:ident,
        summary: $summary:literal,
        source: $source:literal,
        hint: $hint:expr; )*) => {
        /// One check of the board loader; see the module documentation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $( #[doc = $summary] $variant, )*
        }

        impl Rule {
            /// Every rule, in the order of the documentation table.
            pub const ALL: &'static [Rule] = &[ $( Rule::$variant, )* ];

            /// Stable kebab-case id, printed as `error[ID]` / `warning[ID]`.
            pub const fn id(self) -> &'static str {
                match self { $( Rule::$variant => $id, )* }
            }

            /// Whether the rule's diagnostics are errors or warnings.
            pub const fn severity(self) -> Severity {
                match self { $( Rule::$variant => Severity::$sev, )* }
            }

            /// One line: what the rule checks.
            pub const fn summary(self) -> &'static str {
                match self { $( Rule::$variant => $summary, )* }
            }

            /// Where the rule comes from: the kernel file and function, the
            /// binding or document, or the reason for it.
            pub const fn source(self) -> &'static str {
                match self { $( Rule::$variant => $source, )* }
            }

            /// The hint of a rule that has one fixed hint (`None` when the
            /// hint depends on the value, e.g. the sizes a driver accepts).
            pub const fn hint(self) -> Option<&'static str> {
                match self { $( Rule::$variant => $hint, )* }
            }
        }
    };
}

rules! {
    // ---- reading the file and YAML
    FileTooLarge = "file-too-large", Error,
        summary: "a board file is at most 1 MiB",
        source: "hardening: a board is kilobytes; `/dev/zero` or an image file must not be read whole",
        hint: Some("a board file is a few kilobytes of YAML; is this the right file?");
    NotUtf8 = "not-utf8", Error,
        summary: "a board file is UTF-8 text (reported at the first bad byte's line:col)",
        source: "YAML 1.2, section 5.2 (character encodings)",
        hint: Some("a board file is UTF-8 YAML text; is this the right file?");
    YamlSyntax = "yaml-syntax", Error,
        summary: "the file parses as YAML 1.2",
        source: "YAML 1.2 (the saphyr parser)",
        hint: Some("check indentation and quoting near this position");
    DuplicateKey = "duplicate-key", Error,
        summary: "a key appears once per mapping (`1`, `01` and `'1'` name one key)",
        source: "YAML 1.2, section 3.2.1.1 (mapping keys are unique); saphyr 0.0.8 keeps the last one silently",
        hint: Some("a key appears once per mapping: remove or merge the repeated one (an integer key is read as its number: `01` is `1`)");
    KeyNotString = "key-not-string", Error,
        summary: "mapping keys are plain strings (not `true`, `null`, numbers with a fraction or collections)",
        source: "the board's data model (JSON Schema) has string keys only",
        hint: Some("quote the key");
    YamlTag = "yaml-tag", Error,
        summary: "a value carries no YAML tag but a core-schema one (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`), and parses as the type it names",
        source: "YAML 1.2, section 10.3 (core schema); saphyr: Scalar::parse_from_cow_and_metadata",
        hint: Some("remove the tag, or write a value of the tagged type (YAML 1.2: no `_` in numbers)");
    MultipleDocuments = "multiple-documents", Error,
        summary: "a board file holds one YAML document",
        source: "board format: one file, one board",
        hint: Some("a board file holds exactly one document; remove the `---` separator");
    EmptyFile = "empty-file", Error,
        summary: "the file has a document",
        source: "board format: `version` and `board` are required",
        hint: Some("start with `version: 1`");
    YamlAlias = "yaml-alias", Error,
        summary: "no YAML aliases (`*name`)",
        source: "hardening: saphyr resolves an alias by cloning its anchor (alias bomb)",
        hint: Some("write the value out");
    NestingDepth = "nesting-depth", Error,
        summary: "at most 32 levels of nested sequences and mappings",
        source: "hardening: 10,000 nested sequences overflowed the stack",
        hint: Some("a board file nests a few levels; check the indentation or the `- `/`[` here");
    ValueTooLong = "value-too-long", Error,
        summary: "a value is at most 4096 bytes",
        source: "hardening: bounded memory and error size",
        hint: Some("board values are short; is this the right file?");
    TooManyNodes = "too-many-nodes", Error,
        summary: "at most 50,000 YAML nodes",
        source: "hardening: bounded memory and time",
        hint: Some("a board file has a few hundred; is this the right file?");
    // ---- the schema derived from the model
    FormatVersion = "format-version", Error,
        summary: "`version` is the board format this zynq-net reads (1)",
        source: "docs/board-format.md, Changelog",
        hint: Some("see docs/board-format.md, section Changelog, for migration");
    UnknownKey = "unknown-key", Error,
        summary: "every key is one the format defines; renamed and mistyped keys get a did-you-mean",
        source: "JSON Schema of the model (`zynq-net schema`): no additional properties",
        hint: None;
    MissingKey = "missing-key", Error,
        summary: "required keys are present",
        source: "JSON Schema of the model: `required`",
        hint: None;
    WrongType = "wrong-type", Error,
        summary: "a value has the type or shape the format expects (string, integer, list, map)",
        source: "JSON Schema of the model: `type`, `oneOf`/`anyOf` of shapes",
        hint: None;
    BadEnum = "bad-enum", Error,
        summary: "a value is one of the names the format lists (soc, driver, kernel, ...)",
        source: "JSON Schema of the model: `enum`/`const`",
        hint: None;
    IntegerRange = "integer-range", Error,
        summary: "an integer fits its field's type (`mtu: 4294967296` does not fit u32)",
        source: "JSON Schema of the model: `minimum`/`maximum` from the Rust integer type",
        hint: None;
    NotInteger = "not-integer", Error,
        summary: "an integer is written without a fraction or exponent (`1500.0` is a float in YAML 1.2)",
        source: "YAML 1.2 core schema; the model's integer fields",
        hint: None;
    Pattern = "pattern", Error,
        summary: "a name, label, CPU list or IRQ pattern matches its pattern",
        source: "JSON Schema of the model: `pattern`",
        hint: None;
    TooFewItems = "too-few-items", Error,
        summary: "a list has its minimum number of items (interfaces, MDIO devices, MCDMA interrupts, ...)",
        source: "JSON Schema of the model: `minItems`",
        hint: None;
    Internal = "internal-error", Error,
        summary: "a zynq-net bug: the schema does not compile, or a schema-valid board does not deserialize",
        source: "no input should reach it: please report it with the board file",
        hint: None;
    // ---- platform
    SocArch = "soc-arch", Error,
        summary: "`board.arch` is the SoC's architecture",
        source: "ZynqMP: arm64 (Cortex-A53); Zynq-7000: arm (Cortex-A9); QorIQ P10xx/P20xx: powerpc (e500v2)",
        hint: None;
    SocCpus = "soc-cpus", Error,
        summary: "`board.cpus` is at most the SoC's CPU count",
        source: "UG1085 (ZynqMP: 4), UG585 (Zynq-7000: 2), QorIQ P1010 (1), P1020/P2020 (2) reference manuals",
        hint: None;
    KernelSoc = "kernel-soc", Error,
        summary: "the kernel builds for the SoC: linux-xlnx for Zynq/ZynqMP, linux-qoriq and qoriq-sdk for QorIQ",
        source: "meta-xilinx linux-xlnx.inc: COMPATIBLE_MACHINE only for zynq/zynqmp (and microblaze/versal); meta-freescale linux-qoriq.inc: COMPATIBLE_MACHINE = \"(qoriq)\"",
        hint: None;
    DriverNotOnSoc = "driver-not-on-soc", Error,
        summary: "the Ethernet driver exists on the SoC",
        source: "ZynqMP/Zynq: GEM (macb) and PL AXI Ethernet; QorIQ: eTSEC (gianfar)",
        hint: Some("use the SoC's Ethernet driver (ZynqMP/Zynq: macb, PL: axienet/xxv/xxv-mcdma; QorIQ P1010/P1020/P2020: gianfar)");
    OnChipMacs = "on-chip-macs", Error,
        summary: "no more on-chip MAC ports than the SoC has",
        source: "UG1085 ch. 34 (ZynqMP GEM0-3), UG585 ch. 16 (Zynq-7000 GEM0-1), arch/powerpc/boot/dts/fsl/p1020si-post.dtsi (eTSEC1-3)",
        hint: Some("other ports are PL or PCIe devices with their own driver");
    TooManyInterfaces = "too-many-interfaces", Error,
        summary: "a board file describes at most 64 interfaces",
        source: "hardening: bounded output",
        hint: Some("describe the board's real ports");
    // ---- interfaces
    IfaceName = "iface-name", Error,
        summary: "interface names are 1-15 letters, digits, `_`, `-`, `.`",
        source: "net/core/dev.c: dev_valid_name (IFNAMSIZ); names reach generated shell",
        hint: Some("Linux refuses `/`, `:` and whitespace (dev_valid_name); shell metacharacters are refused too because names reach generated shell");
    IfaceDuplicate = "iface-duplicate", Error,
        summary: "each interface is described once",
        source: "one plan step per knob and interface",
        hint: Some("each interface appears once");
    UnknownInterface = "unknown-interface", Error,
        summary: "interface names in `fastpath.flowtable` and `bench.dut` are interfaces of the board",
        source: "the flowtable and the bench act on described interfaces only",
        hint: None;
    MtuMin = "mtu-min", Error,
        summary: "the MTU is at least 68",
        source: "RFC 791 (IPv4 minimum); net/ethernet/eth.c: ETH_MIN_MTU",
        hint: Some("use 1500 or a jumbo size the driver supports");
    MtuMax = "mtu-max", Error,
        summary: "the MTU is at most the driver's maximum (macb ZynqMP 10222, Zynq-7000 1518, gianfar 9586, axienet/XXV 9000, mlx5 9978)",
        source: "the driver's max_mtu: macb_main.c, gianfar.c, xilinx_axienet_main.c, mlx5 (drivers.rs)",
        hint: None;
    RingUnsupported = "ring-unsupported", Error,
        summary: "`rings` only on a driver with `ethtool -G`",
        source: "drivers/net/veth.c: no set_ringparam",
        hint: Some("remove `rings`");
    RingLimit = "ring-limit", Error,
        summary: "ring sizes are within the driver's range",
        source: "set_ringparam of macb_main.c (rx 64..8192, tx 64..4096), gianfar_ethtool.c: gfar_sringparam (..256), xilinx_axienet_main.c, mlx5 en.h",
        hint: None;
    RingPow2 = "ring-pow2", Error,
        summary: "gianfar ring sizes are powers of two",
        source: "drivers/net/ethernet/freescale/gianfar_ethtool.c: gfar_sringparam",
        hint: None;
    RingRounded = "ring-rounded", Warning,
        summary: "a ring size the driver rounds up to a power of two (macb, mlx5)",
        source: "drivers/net/ethernet/cadence/macb_main.c: macb_set_ringparam (roundup_pow_of_two)",
        hint: None;
    CoalesceUnsupported = "coalesce-unsupported", Error,
        summary: "`coalesce` only on a driver with `ethtool -C`",
        source: "drivers/net/ethernet/cadence/macb_main.c, veth.c: no set_coalesce",
        hint: Some("remove `coalesce`");
    CoalesceParam = "coalesce-param", Error,
        summary: "coalescing parameters are ones the driver supports",
        source: "the driver's set_coalesce and supported_coalesce_params (drivers.rs)",
        hint: None;
    CoalesceLimit = "coalesce-limit", Error,
        summary: "coalescing values are within the driver's limits",
        source: "gianfar_ethtool.c: gfar_scoalesce (usecs <= 0xffff, frames <= 0xff); xilinx_axienet_main.c; mlx5 en_ethtool.c",
        hint: None;
    GianfarCoalescePair = "gianfar-coalesce-pair", Warning,
        summary: "gianfar coalescing sets both usecs and frames of a direction, non-zero",
        source: "drivers/net/ethernet/freescale/gianfar_ethtool.c: gfar_scoalesce",
        hint: None;
    OffloadName = "offload-name", Error,
        summary: "offload keys are ethtool feature names (lower case, digits, `-`, `_`)",
        source: "net/ethtool/common.c: netdev_features_strings",
        hint: Some("use ethtool -k names: gro, tso, gso, lro, rx-gro-hw, ...");
    OffloadUnknown = "offload-unknown", Warning,
        summary: "an offload name neither ethtool nor Linux 6.12 has (passed to `ethtool -K` as written)",
        source: "ethtool(8) -K short names; net/ethtool/common.c: netdev_features_strings (data/ethtool-features-6.12.txt)",
        hint: Some("check the name in `ethtool -k IFACE`");
    GianfarQueueGroups = "gianfar-queue-groups", Error,
        summary: "gianfar RX/TX queues are at most the eTSEC's queue groups (P1020 2, P1010 1, P2020 1)",
        source: "drivers/net/ethernet/freescale/gianfar.c: gfar_of_init; arch/powerpc/boot/dts/fsl/p1020si-post.dtsi",
        hint: None;
    TxQueuesMax = "tx-queues-max", Error,
        summary: "TX queues are at most the driver's maximum",
        source: "the driver's alloc_etherdev_mq count (drivers.rs)",
        hint: None;
    RxQueuesMax = "rx-queues-max", Error,
        summary: "RX queues are at most the hardware's (macb on the Zynq-7000: 1)",
        source: "drivers/net/ethernet/cadence/macb_main.c: macb_probe_queues, macb_init (one IRQ per queue); arch/arm/boot/dts/xilinx/zynq-7000.dtsi: one GEM interrupt",
        hint: Some("use queues: { rx: 1, tx: 1 } and spread receive work with rps");
    ChannelsMismatch = "channels-mismatch", Warning,
        summary: "`channels` and `queues` give the same queue counts",
        source: "`ethtool -L` sets the counts every other step assumes",
        hint: Some("make `queues` the counts the device has after `ethtool -L`");
    QueueIndex = "queue-index", Error,
        summary: "RPS, XPS and zero-copy queue numbers are below the interface's queue count",
        source: "net/core/net-sysfs.c: queues/rx-N and tx-N exist for N < real_num_rx/tx_queues",
        hint: None;
    XpsSingleQueue = "xps-single-queue", Warning,
        summary: "XPS on a port with one TX queue is refused by the kernel and left out of the plan",
        source: "net/core/net-sysfs.c: xps_cpus_store returns -ENOENT unless netif_is_multiqueue",
        hint: Some("remove xps, or raise queues.tx if the driver has more TX queues (Documentation/networking/scaling.rst, XPS)");
    RfsLimit = "rfs-limit", Error,
        summary: "RFS table sizes (`rfs_sock_flow_entries`, `rfs_flow_cnt`) are at most 2^29",
        source: "net/core/sysctl_net_core.c: rps_sock_flow_sysctl; net/core/net-sysfs.c: store_rps_dev_flow_table_cnt",
        hint: None;
    RfsRounded = "rfs-rounded", Warning,
        summary: "an RFS table size the kernel rounds up to a power of two (generated rounded)",
        source: "roundup_pow_of_two in net/core/sysctl_net_core.c: rps_sock_flow_sysctl and net-sysfs.c: store_rps_dev_flow_table_cnt",
        hint: None;
    RfsNeedsGlobal = "rfs-needs-global", Warning,
        summary: "per-queue RFS (`rfs_flow_cnt`) without the global table (`system.rfs_sock_flow_entries`)",
        source: "Documentation/networking/scaling.rst, RFS",
        hint: Some("set system.rfs_sock_flow_entries (e.g. 32768); Documentation/networking/scaling.rst");
    CpuListSyntax = "cpu-list-syntax", Error,
        summary: "a CPU list is numbers and ascending ranges",
        source: "the cpu-list format of Documentation/admin-guide/kernel-parameters.rst (lib/bitmap.c: bitmap_parselist)",
        hint: Some("write CPU numbers and ranges, e.g. \"0-3\" or \"1,3\"");
    CpuRange = "cpu-range", Error,
        summary: "the CPUs of a list are below `board.cpus`",
        source: "kernel/irq/proc.c, net/core/net-sysfs.c: a mask of absent CPUs is refused or trimmed",
        hint: Some("use CPUs below board.cpus, or raise board.cpus if the SoC has more");
    IrqNumber = "irq-number", Error,
        summary: "IRQs are named as /proc/interrupts shows them, not numbered",
        source: "IRQ numbers are assigned at probe and change between kernels and boots (DESIGN.md)",
        hint: Some("name the IRQ as /proc/interrupts shows it (macb: eth0; gianfar: eth0_g0_rx; mlx5: mlx5_comp0@pci:...)");
    IrqPatternBroad = "irq-pattern-broad", Error,
        summary: "an IRQ pattern has at least three literal characters",
        source: "a pattern like `*` would pin every IRQ of the system",
        hint: Some("name the NIC's IRQs: at least three literal characters, e.g. eth0 or eth0_g*");
    IrqMultiCpu = "irq-multi-cpu", Warning,
        summary: "a multi-CPU IRQ mask on a controller that delivers each IRQ to one CPU (GIC-400, GIC-390, MPIC)",
        source: "drivers/irqchip/irq-gic.c: gic_set_affinity takes one CPU of the mask; arch/powerpc/sysdev/mpic.c: mpic_set_affinity with MPIC_SINGLE_DEST_CPU (platforms/85xx/mpc85xx_rdb.c)",
        hint: Some("pin to one CPU; the applier reports effective_affinity");
    IrqbalanceRunning = "irqbalance-running", Error,
        summary: "pinned IRQs with `system.irqbalance: running`",
        source: "irqbalance(1) rewrites the smp_affinity of every IRQ it does not ban",
        hint: Some("set system.irqbalance: ban-pinned (generates an irqbalance policy banning these IRQs) or absent");
    MultiqSingleQueue = "multiq-single-queue", Warning,
        summary: "a multiq qdisc on a port with one TX queue (the applier skips it)",
        source: "net/sched/sch_multiq.c: multiq_tune refuses a device that is not multiqueue",
        hint: Some("remove the qdisc or raise the queue count");
    SkbeditQueue = "skbedit-queue", Error,
        summary: "a filter's skbedit queue_mapping is below the TX queue count",
        source: "net/sched/act_skbedit.c: tcf_skbedit_act ignores queue_mapping >= real_num_tx_queues",
        hint: None;
    FilterAddress = "filter-address", Error,
        summary: "a filter address is an IPv4 address or prefix",
        source: "tc-u32(8): `match ip dst ADDR/LEN`",
        hint: Some("write 192.168.0.3 or 10.0.0.0/8");
    PtpOn = "ptp-on", Warning,
        summary: "`ptp: on` does nothing; only `off` has a plan step",
        source: "the plan's `ptp IFACE off` step (docs/plan-format.md)",
        hint: Some("remove the key to leave PTP as the driver sets it");
    ZcrxUnsupported = "zcrx-unsupported", Error,
        summary: "zero-copy receive only on a driver with the netdev queue API and header split",
        source: "io_uring zero-copy receive (Linux 6.15, io_uring/zcrx.c) needs the netdev queue API (include/linux/netdevice.h: queue_mgmt_ops) and header split",
        hint: Some("use an mlx5 (or other queue-API) NIC, or remove zero_copy_rx");
    ZcrxBufLen = "zcrx-buf-len", Error,
        summary: "zero-copy `rx_buf_len` is a power of two of at least 4096",
        source: "io_uring zcrx: buffers are pages (page-sized, power-of-two chunks)",
        hint: Some("use 4096 ... 131072");
    ZcrxHeaderSplit = "zcrx-header-split", Error,
        summary: "`tcp_data_split` needs `rx-gro-hw: on`",
        source: "drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c: header split needs SHAMPO (hardware GRO)",
        hint: Some("add `rx-gro-hw: on` to offloads");
    ZcrxKernel = "zcrx-kernel", Warning,
        summary: "zero-copy receive on a kernel flavour older than 6.15",
        source: "CONFIG_IO_URING_ZCRX, Linux 6.15",
        hint: Some("use a mainline kernel of 6.15 or later");
    // ---- MAC addresses
    MacSyntax = "mac-syntax", Error,
        summary: "a MAC address is six hex octets separated by `:`",
        source: "of_get_mac_address: local-mac-address is 6 bytes",
        hint: Some("write six hex octets: \"00:0a:35:00:22:01\"");
    MacZero = "mac-zero", Error,
        summary: "a MAC address is not all zeros",
        source: "include/linux/etherdevice.h: is_valid_ether_addr",
        hint: Some("use the address assigned to the board (or a locally administered one: 02:xx:...)");
    MacBroadcast = "mac-broadcast", Error,
        summary: "a MAC address is not the broadcast address",
        source: "include/linux/etherdevice.h: is_valid_ether_addr",
        hint: Some("use a unicast address");
    MacMulticast = "mac-multicast", Error,
        summary: "a MAC address is unicast (bit 0 of the first octet clear)",
        source: "include/linux/etherdevice.h: is_valid_ether_addr, is_multicast_ether_addr",
        hint: Some("use a unicast address: the first octet must be even (e.g. 02:... for locally administered)");
    MacDuplicate = "mac-duplicate", Error,
        summary: "every port has its own MAC address",
        source: "two ports with one address break ARP and the switch's forwarding table",
        hint: Some("every port needs its own MAC address");
    // ---- device tree
    DtLabelDuplicate = "dt-label-duplicate", Error,
        summary: "each port names its own DT node",
        source: "dtc: a label names one node; two ports patching one node overwrite each other",
        hint: Some("each port has its own node");
    PhyModeXgmii = "phy-mode-xgmii", Error,
        summary: "`phy_mode: xgmii` on an AXI/XXV port (the XXV MAC runs 10GBASE-R/25GBASE-R)",
        source: "Xilinx PG210 (10G/25G Ethernet subsystem); linux-xlnx xilinx_axienet_main.c: axienet_probe",
        hint: Some("write `phy_mode: 10gbase-r` (or 25gbase-r): linux-xlnx's axienet_probe fails without a phy-mode it knows (docs/board-format.md)");
    PhyModeUnknown = "phy-mode-unknown", Error,
        summary: "`phy_mode` is a phy-mode of the binding",
        source: "Documentation/devicetree/bindings/net/ethernet-controller.yaml",
        hint: Some("use e.g. rgmii-id, sgmii, 1000base-x, 10gbase-r");
    PhyModeMac = "phy-mode-mac", Error,
        summary: "`phy_mode` is one the MAC runs (XXV: 10gbase-r, 25gbase-r, ...; axienet: 1G/2.5G modes)",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_probe",
        hint: None;
    PhyModeMissing = "phy-mode-missing", Error,
        summary: "a generated AXI/XXV node has `phy_mode`",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_probe (of_get_phy_mode)",
        hint: None;
    MaxSpeed = "max-speed", Error,
        summary: "`max_speed` is an Ethernet speed",
        source: "Documentation/devicetree/bindings/net/ethernet-controller.yaml: max-speed",
        hint: Some("use 10, 100, 1000, 2500, 10000 or 25000 (Mbit/s)");
    MaxSpeedMissing = "max-speed-missing", Error,
        summary: "a linux-xlnx 1G/2.5G AXI Ethernet node has `max_speed`",
        source: "linux-xlnx xilinx_axienet_main.c: axienet_probe (\"couldn't find MAC Rate\")",
        hint: Some("add `max_speed: 1000` (or 2500)");
    PhyOrPcsMissing = "phy-or-pcs-missing", Error,
        summary: "an axienet port that needs it has `phy_handle` or `pcs_handle`",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_probe (\"pcs-handle (preferred) or phy-handle required\")",
        hint: Some("set phy_handle (an `mdio.devices` label or an existing PHY) or pcs_handle (the PCS/PMA)");
    XxvNoLink = "xxv-no-link", Warning,
        summary: "an XXV port without phy-handle, fixed-link, `managed` or SFP",
        source: "drivers/net/phy/phylink.c: phylink_of_phy_connect",
        hint: Some("add `managed: in-band-status` (or a fixed_link) when the base tree has none");
    AxiOnlyProperty = "axi-only-property", Error,
        summary: "`pcs_handle` and `checksum` only on AXI Ethernet ports",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c reads pcs-handle, xlnx,txcsum/rxcsum",
        hint: Some("remove it");
    TbiHandle = "tbi-handle", Error,
        summary: "`tbi_handle` only on gianfar ports",
        source: "drivers/net/ethernet/freescale/gianfar.c: gfar_of_init reads tbi-handle",
        hint: Some("use pcs_handle on AXI Ethernet");
    GianfarSgmiiTbi = "gianfar-sgmii-tbi", Warning,
        summary: "gianfar SGMII without `tbi_handle`",
        source: "drivers/net/ethernet/freescale/gianfar.c: gfar_configure_serdes",
        hint: Some("set tbi_handle to the TBI PHY label (P1020RDB: tbi1)");
    FixedLinkSpeed = "fixed-link-speed", Error,
        summary: "`fixed_link.speed` is one the fixed PHY emulates",
        source: "drivers/net/phy/phylink.c: phylink_parse_fixedlink; Documentation/devicetree/bindings/net/ethernet-controller.yaml: fixed-link speed",
        hint: Some("use 10, 100, 1000, 2500 or 10000");
    FixedLinkPhy = "fixed-link-phy", Error,
        summary: "not both `fixed_link` and `phy_handle`",
        source: "drivers/net/phy/phylink.c, drivers/net/mdio/of_mdio.c: of_phy_is_fixed_link",
        hint: Some("keep one");
    FixedLinkInBand = "fixed-link-in-band", Error,
        summary: "not both `fixed_link` and `managed: in-band-status`",
        source: "drivers/net/phy/phylink.c: phylink_parse_mode (\"can't use both fixed-link and in-band-status\")",
        hint: Some("drop `managed` or the fixed link");
    OpenNoLink = "open-no-link", Error,
        summary: "a port whose driver connects its link at open has phy-handle, fixed-link or `managed: in-band-status` (`sfp` or `pcs-handle` alone fails): phylink on axienet and on linux-xlnx XXV, phylib on gianfar",
        source: "drivers/net/phy/phylink.c: phylink_fwnode_phy_connect (-ENODEV at 2101, 6.12), from axienet_open (xilinx_axienet_main.c:1620; linux-xlnx alike); drivers/net/ethernet/freescale/gianfar.c: gfar_enet_open -> init_phy (of_phy_connect, -ENODEV at 1678)",
        hint: Some("add `managed: in-band-status` (SFP cage, PCS/PMA, in-band SGMII/1000BASE-X/10GBASE-R), a phy_handle or a fixed_link");
    OpenMacIrq = "open-mac-irq", Error,
        summary: "a linux-xlnx 1G AXI Ethernet node with its own DMA (axistream-connected) has the MAC interrupt",
        source: "linux-xlnx xilinx_axienet_main.c: axienet_open -> axienet_init_legacy_dma, request_irq(lp->eth_irq) without testing it (mainline tests eth_irq > 0)",
        hint: Some("list the MAC interrupt (the IP's `interrupt` output, edge) first in `interrupts`");
    OpenDmaClocks = "open-dma-clocks", Error,
        summary: "every clock of an axistream-connected DMA is one the Ethernet driver enables",
        source: "linux-xlnx xilinx_axienet_main.c: axienet_dma_clk_init reads m_axi_mm2s_aclk, m_axi_s2mm_aclk, m_axi_sg_aclk from the Ethernet node; mainline 6.12 axienet_probe reads no DMA clock",
        hint: Some("on linux-xlnx the generated node carries the DMA clocks on the MAC too (as the Xilinx device-tree generator writes them); on mainline give the DMA the MAC's clock, or use `dmas`");
    OpenPhyDelay = "open-phy-delay", Error,
        summary: "a TI DP83867 PHY on an `rgmii-id`/`rgmii-rxid` port has `dp83867.rx_internal_delay_ps`, on `rgmii-id`/`rgmii-txid` `dp83867.tx_internal_delay_ps` (the generic `rx_internal_delay_ps`/`tx_internal_delay_ps` are not read)",
        source: "drivers/net/phy/dp83867.c: dp83867_config_init -> dp83867_verify_rgmii_cfg (-EINVAL at 537 and 545, 6.12), run at open: phy_attach_direct -> phy_init_hw (drivers/net/phy/phy_device.c:1663, 1311) from macb_open -> macb_phylink_connect, axienet_open, gfar_enet_open -> init_phy",
        hint: Some("add the delay under the device's `dp83867` (ZCU102: rx_internal_delay_ps: 2250, tx_internal_delay_ps: 2750), or use `rgmii` when the board's traces or the MAC add the delay");
    OpenPhyIsConverter = "open-phy-is-converter", Error,
        summary: "a port's `phy_handle` names a PHY, not a GMII-to-RGMII converter (an MDIO device that is no PHY)",
        source: "drivers/net/mdio/of_mdio.c: of_mdiobus_child_is_phy (a node with a non-PHY compatible is an MDIO device, 135-138); drivers/net/phy/phy_device.c: fwnode_phy_find_device returns NULL for it (3519-3524); drivers/net/phy/phylink.c: phylink_fwnode_phy_connect -> -ENODEV at open (2108), from macb_open -> macb_phylink_connect and axienet_open",
        hint: Some("point `phy_handle` at the external PHY (the converter's own `gmii_to_rgmii.phy_handle`); the converter follows that PHY's link by itself");
    Dp83867Value = "dp83867-value", Error,
        summary: "DP83867 delays are 250..4000 ps in steps of 250, FIFO depths 3, 4, 6 or 8 nibbles",
        source: "include/dt-bindings/net/ti-dp83867.h (DP83867_RGMIIDCTL_0_25_NS..4_00_NS, DP83867_PHYCR_FIFO_DEPTH_*_B_NIB); drivers/net/phy/dp83867.c: dp83867_of_init refuses larger codes (-EINVAL)",
        hint: None;
    Gmii2rgmiiPhyHandle = "gmii2rgmii-phy-handle", Error,
        summary: "a GMII-to-RGMII converter's `gmii_to_rgmii.phy_handle` names the external PHY, not itself or another converter",
        source: "drivers/net/phy/xilinx_gmii2rgmii.c: xgmiitorgmii_probe (of_phy_find_device(phy-handle) is NULL for an MDIO device that is no PHY: drivers/net/phy/phy_device.c fwnode_phy_find_device; the probe returns -EPROBE_DEFER, \"Couldn't find phydev\", for ever)",
        hint: Some("point `gmii_to_rgmii.phy_handle` at the RGMII PHY the converter feeds (a plain `mdio.devices` PHY or the board DTS's)");
    MdioDeviceKind = "mdio-device-kind", Error,
        summary: "an MDIO device is one kind: at most one of `dp83867`, `pcs_pma`, `gmii_to_rgmii`, and a `compatible` that names that kind's device",
        source: "drivers/net/phy/phy_device.c: phy_bus_match binds one PHY driver per MDIO address by its ID (DP83867: dp83867.c DP83867_PHY_ID; the Xilinx PCS/PMA: linux-xlnx xilinx_phy.c); drivers/net/mdio/of_mdio.c: of_mdiobus_child_is_phy (a converter's non-PHY compatible makes it an MDIO device, bound by xilinx_gmii2rgmii.c)",
        hint: Some("describe each chip as its own device at its own MDIO address (the PCS/PMA and the external PHY are two devices)");
    Dp83867GenericDelay = "dp83867-generic-delay", Error,
        summary: "a TI DP83867 has its RGMII delays under `dp83867`, not in the generic `rx_internal_delay_ps`/`tx_internal_delay_ps`",
        source: "drivers/net/phy/dp83867.c: dp83867_of_init reads ti,rx-internal-delay and ti,tx-internal-delay only (6.12); the generic rx/tx-internal-delay-ps (ethernet-phy.yaml) are read by phy_get_internal_delay, which dp83867 does not call",
        hint: None;
    SfpMaxPower = "sfp-max-power", Error,
        summary: "an SFP cage's `maximum_power_milliwatt` is 1000 or more",
        source: "Documentation/devicetree/bindings/net/sff,sfp.yaml (maximum-power-milliwatt: minimum 1000); drivers/net/phy/sfp.c: sfp_probe (\"Firmware bug: host maximum power should be at least 1W\", then 1 W), sfp_module_parse_power (1.5 W and 2 W modules need more)",
        hint: Some("use milliwatts: 1000 (the default), 1500 or 2000 as the cage's power rail allows");
    SfpI2cMux = "sfp-i2c-mux", Error,
        summary: "an SFP cage's I2C bus behind a mux names the mux (`i2c_mux`), one whose driver the kernel has",
        source: "drivers/i2c/muxes/i2c-mux-pca954x.c (pca954x_of_match), i2c-mux-gpio.c: a mux channel is an I2C adapter only once the mux driver (CONFIG_I2C_MUX_PCA954x, CONFIG_I2C_MUX_GPIO) probes; drivers/net/phy/sfp.c: sfp_probe defers until of_find_i2c_adapter_by_node finds it",
        hint: None;
    FixedClockIndex = "fixed-clock-index", Error,
        summary: "a clock reference to a board `fixed_clocks` entry has no `index`",
        source: "Documentation/devicetree/bindings/clock/fixed-clock.yaml (#clock-cells: const 0); drivers/clk/clk.c: of_parse_clkspec reads #clock-cells argument cells, so an index would be taken for the next clock's phandle",
        hint: Some("drop `index`: a fixed clock has one output (`{ label: gt_ref_clk }`)");
    MacIrqCount = "mac-irq-count", Error,
        summary: "a PL MAC node has one interrupt (the MAC's own); the DMA's go under `dma`",
        source: "xilinx_axienet_main.c: axienet_probe reads platform_get_irq(pdev, 0) only when a DMA node is connected (mainline 6.12 and linux-xlnx)",
        hint: Some("keep the MAC interrupt in `interrupts` and move the others to `dma.interrupts`");
    DtLabelMissing = "dt-label-missing", Error,
        summary: "every label the board refers to exists: generated by the board itself or defined in the board DTS (checked when a kernel tree is given: `check`/`gen --kernel-tree`)",
        source: "dtc: a reference to an undefined label fails the build (\"Reference to non-existent node or label\"); the board DTS preprocessed with cpp and compiled with dtc -@ as the kernel's dtbs rule does",
        hint: None;
    SocDts = "soc-dts", Error,
        summary: "`board.soc` is the SoC of `board.dts` (its root compatible; checked when a kernel tree is given, and by `dtb verify` on the DTB)",
        source: "the board DTS's root `compatible` (zynqmp-*.dts: xlnx,zynqmp; zynq-*.dts: xlnx,zynq-7000; fsl/p1020rdb*.dts: fsl,P1020RDB*; fsl/p2020rdb*.dts: fsl,P2020RDB*)",
        hint: Some("set `soc` to the SoC of the board DTS, or name the right `dts`");
    MdioAddress = "mdio-address", Error,
        summary: "MDIO device addresses are unique on a bus",
        source: "drivers/net/mdio/of_mdio.c: one device per bus address",
        hint: Some("each device on a bus has its own address");
    // ---- generated PL (AXI/XXV) nodes
    PlNodeDriver = "pl-node-driver", Error,
        summary: "a PL node (`dt.node`) only for axienet, xxv and xxv-mcdma ports",
        source: "on-chip MACs have their node in the SoC's .dtsi; only PL IP needs one generated",
        hint: Some("patch the existing node by `label` instead");
    DmaStylesMixed = "dma-styles-mixed", Error,
        summary: "not both `dmas` (mainline) and `axistream_connected` (linux-xlnx)",
        source: "Documentation/devicetree/bindings/net/xlnx,axi-ethernet.yaml (dmas) vs linux-xlnx (axistream-connected)",
        hint: None;
    DmaNone = "dma-none", Error,
        summary: "a PL MAC is connected to a DMA engine (`dmas` or `axistream_connected`)",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_probe",
        hint: Some("set `dmas: true` (mainline) or `axistream_connected: true` (linux-xlnx, and mainline 6.12 without dmas)");
    DmasOnLinuxXlnx = "dmas-on-linux-xlnx", Error,
        summary: "no `dmas` on linux-xlnx, which reads `axistream-connected`",
        source: "linux-xlnx drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_probe",
        hint: Some("use `axistream_connected: true`, or build with the mainline kernel flavour");
    DmaAddrWidth = "dma-addrwidth", Error,
        summary: "the DMA address width is 32..64 bits",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: xlnx,addrwidth read as u8",
        hint: Some("the AXI DMA/MCDMA IP has 32 to 64 address bits (axienet reads it as u8 and falls back to 32 outside that)");
    DmaDataWidth = "dma-datawidth", Error,
        summary: "the DMA stream width is a power of two in 8..1024 bits",
        source: "Xilinx PG021 (AXI DMA): stream data width",
        hint: Some("use the AXI DMA's stream width, e.g. 32 or 64");
    RxmemZero = "rxmem-zero", Error,
        summary: "`rxmem` is not 0",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_change_mtu (xlnx,rxmem)",
        hint: Some("give the MAC's RX memory in bytes, e.g. 0x8000");
    DmaOverlapsMac = "dma-overlaps-mac", Error,
        summary: "the DMA register window does not overlap the MAC's",
        source: "two devices cannot share a register window",
        hint: Some("give the MAC and the DMA engine their own address ranges");
    RegWindow = "reg-window", Error,
        summary: "a register window has a size and fits the 64-bit address space",
        source: "Documentation/devicetree/bindings: `reg` is address + size",
        hint: None;
    ClockName = "clock-name", Error,
        summary: "clock names are ones the driver asks for",
        source: "Documentation/devicetree/bindings/net/xlnx,axi-ethernet.yaml: clock-names",
        hint: None;
    ClockMissing = "clock-missing", Error,
        summary: "every clock the driver asks for is given (or `clock` for all)",
        source: "Documentation/devicetree/bindings/net/xlnx,axi-ethernet.yaml: clock-names",
        hint: None;
    AxidmaIrqCount = "axidma-irq-count", Error,
        summary: "an AXI DMA has two interrupts (MM2S, S2MM)",
        source: "drivers/net/ethernet/xilinx/xilinx_axienet_main.c: axienet_probe (irq_of_parse_and_map index 0 and 1); with `dmas`, drivers/dma/xilinx/xilinx_dma.c: xilinx_dma_chan_probe (of_irq_get per channel node)",
        hint: Some("list two: the MM2S and the S2MM interrupt");
    McdmaIrqCount = "mcdma-irq-count", Error,
        summary: "an MCDMA has two interrupts per queue",
        source: "linux-xlnx xilinx_axienet_mcdma.c: axienet_mcdma_tx_probe, axienet_mcdma_rx_probe",
        hint: None;
    XxvLinuxXlnx = "xxv-linux-xlnx", Error,
        summary: "XXV ports need the linux-xlnx kernel",
        source: "mainline xilinx_axienet_main.c has no XXV compatible; linux-xlnx has xlnx,xxv-ethernet-1.0",
        hint: Some("set board.kernel: linux-xlnx");
    McdmaNumQueues = "mcdma-num-queues", Error,
        summary: "an xxv-mcdma node has `num_queues`",
        source: "linux-xlnx xilinx_axienet_main.c: xlnx,num-queues defaults to 16 channels",
        hint: Some("set num_queues to the MCDMA channel count");
    McdmaQueuesRx = "mcdma-queues-rx", Warning,
        summary: "MCDMA `num_queues` equals `queues.rx`",
        source: "linux-xlnx xilinx_axienet_mcdma.c: one RX queue per MCDMA channel",
        hint: Some("one MCDMA channel per queue");
    McdmaChannelIdCount = "mcdma-channel-id-count", Error,
        summary: "one MCDMA channel id per queue",
        source: "linux-xlnx xilinx_axienet_main.c: xlnx,channel-ids has num-queues entries",
        hint: Some("give one id per queue, e.g. [\"0x1\", \"0x2\"]");
    McdmaChannelId = "mcdma-channel-id", Error,
        summary: "MCDMA channel ids are hex numbers 1..0x10, with or without 0x (\"a\" and \"0xa\" alike)",
        source: "linux-xlnx xilinx_axienet_main.c: xlnx,channel-ids parsed with kstrtou16(s, 16) (lib/kstrtox.c: the 0x prefix is optional); register 0x40 + (id-1) * 0x40",
        hint: None;
    McdmaChannelIdDuplicate = "mcdma-channel-id-duplicate", Error,
        summary: "each MCDMA channel id once",
        source: "linux-xlnx xilinx_axienet_mcdma.c: one queue per channel",
        hint: Some("each channel once");
    McdmaProps = "mcdma-props", Error,
        summary: "`num_queues`/`channel_ids` only on xxv-mcdma ports",
        source: "linux-xlnx: MCDMA properties; an AXI DMA port has one queue",
        hint: Some("remove them for an AXI DMA port");
    McdmaAxidmaMixed = "mcdma-axidma-mixed", Error,
        summary: "not MCDMA and AXI DMA ports on one linux-xlnx kernel",
        source: "linux-xlnx drivers/net/ethernet/xilinx/Kconfig: CONFIG_AXIENET_HAS_MCDMA switches every axienet port",
        hint: Some("use one DMA kind for every AXI/XXV port of the board (MCDMA with one channel replaces an AXI DMA)");
    AxienetInterrupts = "axienet-interrupts", Error,
        summary: "a mainline-style axienet node has the MAC's `interrupts`",
        source: "Documentation/devicetree/bindings/net/xlnx,axi-ethernet.yaml: required interrupts",
        hint: Some("list the MAC interrupt's GIC SPI number");
    PlIrqLine = "pl-irq-line", Error,
        summary: "PL interrupts are on the SoC's PL-to-PS lines",
        source: "UG1085 table 13-1 (ZynqMP SPI 89-96, 104-111); UG585 table 7-4 (Zynq-7000 SPI 29-36, 52-59)",
        hint: None;
    PlIrqNotShared = "pl-irq-not-shared", Error,
        summary: "a PL line shared with a linux-xlnx AXI DMA channel (requested without IRQF_SHARED)",
        source: "linux-xlnx xilinx_axienet_main.c: axienet_init_legacy_dma (request_irq flags 0)",
        hint: Some("give each AXI DMA channel its own PL-to-PS line (only MCDMA channel interrupts can share)");
    PlIrqSharedEdge = "pl-irq-shared-edge", Error,
        summary: "a shared PL line is level-triggered",
        source: "kernel/irq/manage.c: shared interrupts; an edge from a second source on a wired-OR line is lost",
        hint: Some("shared PL lines must be level-triggered (trigger: level)");
    // ---- system, fast path, bench
    SysctlKey = "sysctl-key", Error,
        summary: "sysctl keys are dotted names",
        source: "sysctl.conf(5)",
        hint: Some("write dotted keys as in sysctl.conf: net.core.rmem_max");
    SysctlValue = "sysctl-value", Error,
        summary: "sysctl values have no shell or quote characters",
        source: "values reach generated shell and sysctl.d files",
        hint: Some("use numbers or words separated by spaces");
    SysctlDedicatedKey = "sysctl-dedicated-key", Error,
        summary: "a sysctl with a dedicated key of `system` is set there only",
        source: "one value per knob (ip_forward, rfs_sock_flow_entries, conntrack_max)",
        hint: Some("keep only the dedicated key");
    SysctlUnknown = "sysctl-unknown", Warning,
        summary: "a sysctl key Linux 6.12's net sysctl tables lack (not for qoriq-sdk kernels)",
        source: "tools/crates/zynq-net-model/data/sysctl-keys-6.12.txt, from the kernel's net sysctl tables (scripts/sysctl-keys)",
        hint: None;
    AsfNeedsSdk = "asf-needs-sdk", Error,
        summary: "Freescale ASF only with the QorIQ SDK kernel",
        source: "CONFIG_AS_FASTPATH exists only in the QorIQ SDK kernels (the asf recipe left meta-freescale in 2018)",
        hint: Some("set board.kernel: qoriq-sdk (legacy), or use fastpath.flowtable on current kernels");
    AsfModuleName = "asf-module-name", Error,
        summary: "ASF module names are letters, digits, `_`, `-`",
        source: "module names reach generated shell (modprobe)",
        hint: Some("letters, digits, `_`, `-`");
    FlowtableSdk = "flowtable-sdk", Warning,
        summary: "an nftables flowtable on the QorIQ SDK kernel, which predates it",
        source: "net/netfilter/nf_flow_table_core.c (Linux 4.16); the SDK kernels are older",
        hint: Some("use fastpath.asf with qoriq-sdk");
    FlowtableForwarding = "flowtable-forwarding", Warning,
        summary: "a flowtable without `system.ip_forward: true`",
        source: "net/netfilter/nf_flow_table_ip.c: only forwarded flows are offloaded",
        hint: Some("set system.ip_forward: true");
    BenchPinIrqCpu = "bench-pin-irq-cpu", Warning,
        summary: "iperf3 pinned onto a CPU that takes the NIC's IRQ",
        source: "docs/bench.md, \"Off the IRQ CPU\": the stack and the application compete for one CPU",
        hint: Some("pin iperf3 to CPUs that do not take the IRQ");
    BenchMtu = "bench-mtu", Error,
        summary: "bench MTUs are 68..65535",
        source: "net/ethernet/eth.c: ETH_MIN_MTU, ETH_MAX_MTU",
        hint: Some("use 68..65535");
    BenchMtuDriver = "bench-mtu-driver", Error,
        summary: "bench MTUs are at most the DUT interface's driver maximum (Zynq-7000 GEM: 1518)",
        source: "the driver's max_mtu (drivers.rs); the runner sets each MTU on the DUT",
        hint: None;
    BenchAddress = "bench-address", Error,
        summary: "a bench host's `address` is an IPv4 or IPv6 address or a DNS host name (iperf3 -c, -B)",
        source: "RFC 791 dotted quad, RFC 4291 text form, RFC 1123 section 2.1 host names",
        hint: Some("write an address such as 192.0.2.16 or a host name such as peer.lab");
    BenchRepeated = "bench-repeated", Error,
        summary: "a bench list (protocols, directions, mtus, streams, frame sizes, the tester's tests and PDRs) names each value once",
        source: "docs/bench.md: a cell's id is made of its values, so a repeated value runs the same cell twice under one id (results, --resume and compare key on it)",
        hint: Some("remove the repeated value; use `repeats` to run a cell more than once");
    BenchUdpRate = "bench-udp-rate", Error,
        summary: "the bench's UDP rate is a bit rate (iperf3 -b)",
        source: "iperf3(1) -b n[KMGT]; iperf3 src/units.c unit_atof_rate: suffixes in powers of 1000",
        hint: Some("write a number with an optional k/M/G/T suffix, e.g. 2500M");
    BenchFrameSize = "bench-frame-size", Error,
        summary: "RFC 2544 frame sizes are 64..9018 bytes",
        source: "RFC 2544, section 9.1 (+ 9018 jumbo)",
        hint: Some("RFC 2544 sizes: 64, 128, 256, 512, 1024, 1280, 1518 (+ 9018 jumbo)");
    BenchStreams = "bench-streams", Error,
        summary: "bench stream counts are 1..128 (iperf3 -P)",
        source: "iperf3 src/iperf.h: MAX_STREAMS 128; src/iperf_api.c refuses -P above it",
        hint: Some("use 1 to 128 parallel streams");
    BenchTesterRange = "bench-tester-range", Error,
        summary: "the tester's settings are in range: frame sizes 64..2048 bytes, trials (0, 86400] s, waits [0, 3600] s, at least 1 latency probe/s and at most 20000 probes a trial, at least 10 frames/s of latency load, latency after throughput unless `latency_fps` is given",
        source: "RFC 2544 sections 23-26; the tester's trafgen frames (docs/bench.md); iperf3's MAX_TIME of 86400 s kept as the trial limit",
        hint: None;
    BenchPercent = "bench-percent", Error,
        summary: "bench percentages are in range: `cpu_bound_pct` (0, 100], `rfc2544.loss_tolerance_pct` [0, 100), `rfc2544.resolution_pct` (0, 50), `tester.resolution_pct` and `tester.b2b_resolution_pct` (0, 50], `tester.loss_step_pct` (0, 10], each `tester.pdr_pct` (0, 100)",
        source: "a core cannot be more than 100% busy; a loss of 100% or a bracket of half the rate is no measurement",
        hint: None;
}

impl Rule {
    /// Whether the rule is about a mapping key rather than its value (a
    /// sysctl name): its diagnostics point at the key
    /// ([`crate::SourceMap::locate`]).
    pub const fn at_key(self) -> bool {
        matches!(self, Rule::SysctlKey | Rule::SysctlUnknown | Rule::SysctlDedicatedKey)
    }

    /// The rule with id `id`.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.id() == id)
    }

    /// The rule a user most likely meant by `id`: the same id in another
    /// case or with `_` for `-` (`SYSCTL_KEY`), else the closest id within
    /// 3 edits (`sysctl-kye`); `None` when nothing is that close.
    pub fn closest(id: &str) -> Option<Rule> {
        let norm = id.to_ascii_lowercase().replace('_', "-");
        Rule::from_id(&norm).or_else(|| {
            let ids: Vec<String> = Rule::ALL.iter().map(|r| r.id().to_string()).collect();
            crate::text::closest(&norm, &ids).and_then(|c| Rule::from_id(&c))
        })
    }

    /// The rule table of docs/board-format.md (Markdown), one row per rule.
    pub fn markdown_table() -> String {
        let mut s = String::from("| id | severity | rule | source |\n|----|----------|------|--------|\n");
        for r in Rule::ALL {
            let sev = match r.severity() {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            let cell = |t: &str| t.replace('|', "\\|");
            s.push_str(&format!("| `{}` | {sev} | {} | {} |\n", r.id(), cell(r.summary()), cell(r.source())));
        }
        s
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for r in Rule::ALL {
            let id = r.id();
            assert!(seen.insert(id), "{id} twice");
            assert!(
                !id.is_empty()
                    && !id.starts_with('-')
                    && !id.ends_with('-')
                    && !id.contains("--")
                    && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{id} is not kebab-case"
            );
            assert_eq!(Rule::from_id(id), Some(*r));
            assert!(!r.summary().is_empty() && !r.source().is_empty(), "{id}");
            assert!(!r.summary().contains('\n') && !r.source().contains('\n'), "{id}: one line");
        }
        assert_eq!(Rule::from_id("no-such-rule"), None);
    }

    #[test]
    fn table_has_a_row_per_rule() {
        let t = Rule::markdown_table();
        assert_eq!(t.lines().count(), Rule::ALL.len() + 2);
        assert!(t.contains("| `ring-pow2` | error | gianfar ring sizes are powers of two |"), "{t}");
        assert!(t.contains("| `ring-rounded` | warning |"), "{t}");
    }

    /// A rule displays as its id (debug assertions and messages name it so).
    #[test]
    fn a_rule_displays_as_its_id() {
        for r in Rule::ALL {
            assert_eq!(r.to_string(), r.id());
        }
        assert_eq!(Rule::RingPow2.to_string(), "ring-pow2");
    }
}
