/*
 * flowtable-load: loads the zynq-net fast path (an nftables flowtable) into
 * the kernel over nf_tables netlink, for the TEST-ONLY emulated P1020 router
 * of scripts/qemu-p1020, whose userland has no `nft`: Debian's nftables,
 * libnftnl and libmnl sources are not served to the test machines, and code
 * from their public repositories may not be built by our scripts
 * (docs/qemu.md). An image never carries this program: it loads
 * /etc/nftables/zynq-net-flowtable.nft with the real nft
 * (meta-zynq-net/recipes-connectivity/zynq-net-flowtable).
 *
 * It installs what that file installs, in one nf_tables transaction:
 *
 *   table inet TABLE                       (created, deleted, created: the
 *   delete table inet TABLE                 file's idempotent reload)
 *   table inet TABLE {
 *       flowtable FT { hook ingress priority filter; devices = { DEV... } }
 *       chain forward {
 *           type filter hook forward priority filter; policy accept;
 *           ct state established,related meta l4proto tcp flow add @FT
 *           ct state established,related meta l4proto udp flow add @FT
 *       }
 *   }
 *
 * The file's one rule matches `meta l4proto { tcp, udp }`, an anonymous set;
 * two rules with a plain comparison each select the same packets without a
 * set (nft_flow_offload_eval, net/netfilter/nft_flow_offload.c, offloads
 * only TCP and UDP flows whatever the rule matches).
 *
 * Usage:
 *   flowtable-load add TABLE FLOWTABLE DEV...   load (exit 0) or print the
 *                                               kernel's error (exit 1)
 *   flowtable-load list                         print every flowtable:
 *     "flowtable FAMILY TABLE NAME hook HOOK priority P use N devices DEV..."
 *   flowtable-load delete TABLE                 delete table inet TABLE
 * Exit: 0 done, 1 the kernel refused (its error printed), 2 usage.
 *
 * Netlink message and attribute layout: include/uapi/linux/netfilter/
 * nf_tables.h and nfnetlink.h; the batch protocol: nfnetlink_rcv_batch()
 * in net/netfilter/nfnetlink.c (Linux 6.12).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_conntrack_common.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define BUF_SIZE 16384

struct buf {
	unsigned char data[BUF_SIZE];
	size_t len;
	int overflow;
};

static void *reserve(struct buf *b, size_t len)
{
	size_t alen = NLMSG_ALIGN(len);
	void *p;

	if (b->len + alen > sizeof(b->data)) {
		b->overflow = 1;
		return NULL;
	}
	p = b->data + b->len;
	memset(p, 0, alen);
	b->len += alen;
	return p;
}

static size_t msg_begin(struct buf *b, uint16_t type, uint16_t flags, uint8_t family,
			uint16_t res_id, uint32_t seq)
{
	size_t off = b->len;
	struct nlmsghdr *n = reserve(b, sizeof(*n));
	struct nfgenmsg *g = reserve(b, sizeof(*g));

	if (!n || !g)
		return off;
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = seq;
	g->nfgen_family = family;
	g->version = NFNETLINK_V0;
	g->res_id = htons(res_id);
	return off;
}

static void msg_end(struct buf *b, size_t off)
{
	if (!b->overflow)
		((struct nlmsghdr *)(b->data + off))->nlmsg_len = (uint32_t)(b->len - off);
}

static void put(struct buf *b, uint16_t type, const void *data, size_t len)
{
	struct nlattr *a = reserve(b, NLA_HDRLEN + len);

	if (!a)
		return;
	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
}

static void put_str(struct buf *b, uint16_t type, const char *s)
{
	put(b, type, s, strlen(s) + 1);
}

static void put_be32(struct buf *b, uint16_t type, uint32_t v)
{
	uint32_t be = htonl(v);

	put(b, type, &be, sizeof(be));
}

static size_t nest_begin(struct buf *b, uint16_t type)
{
	size_t off = b->len;
	struct nlattr *a = reserve(b, NLA_HDRLEN);

	if (a)
		a->nla_type = type | NLA_F_NESTED;
	return off;
}

static void nest_end(struct buf *b, size_t off)
{
	if (!b->overflow)
		((struct nlattr *)(b->data + off))->nla_len = (uint16_t)(b->len - off);
}

/* An NFTA_DATA_VALUE inside the nested attribute TYPE. */
static void put_data(struct buf *b, uint16_t type, const void *v, size_t len)
{
	size_t n = nest_begin(b, type);

	put(b, NFTA_DATA_VALUE, v, len);
	nest_end(b, n);
}

static size_t expr_begin(struct buf *b, const char *name, size_t *data)
{
	size_t e = nest_begin(b, NFTA_LIST_ELEM);

	put_str(b, NFTA_EXPR_NAME, name);
	*data = nest_begin(b, NFTA_EXPR_DATA);
	return e;
}

static void expr_end(struct buf *b, size_t e, size_t data)
{
	nest_end(b, data);
	nest_end(b, e);
}

/* The rule's registers: nft's "reg 1" (NFT_REG_1, 16 bytes). */
#define REG NFT_REG_1
/* ct state established,related (include/uapi/.../nf_conntrack_common.h). */
#define CT_STATE_MASK (NF_CT_STATE_BIT(IP_CT_ESTABLISHED) | NF_CT_STATE_BIT(IP_CT_RELATED))

/* [ cmp OP reg 1 DATA ] */
static void cmp(struct buf *b, uint32_t op, const void *data, size_t len)
{
	size_t d, e = expr_begin(b, "cmp", &d);

	put_be32(b, NFTA_CMP_SREG, REG);
	put_be32(b, NFTA_CMP_OP, op);
	put_data(b, NFTA_CMP_DATA, data, len);
	expr_end(b, e, d);
}

/*
 * One rule: ct state established,related meta l4proto PROTO flow add @FT.
 * Register values are in host byte order (ct state and l4proto are loaded
 * as host-order integers: nft_ct_get_eval, nft_meta_get_eval).
 */
static void rule(struct buf *b, uint32_t seq, const char *table, const char *ft, uint8_t proto)
{
	size_t m = msg_begin(b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWRULE,
			     NLM_F_CREATE | NLM_F_APPEND | NLM_F_ACK, NFPROTO_INET, 0, seq);
	size_t list, e, d;
	uint32_t mask = CT_STATE_MASK, zero = 0;

	put_str(b, NFTA_RULE_TABLE, table);
	put_str(b, NFTA_RULE_CHAIN, "forward");
	list = nest_begin(b, NFTA_RULE_EXPRESSIONS);

	e = expr_begin(b, "ct", &d);
	put_be32(b, NFTA_CT_DREG, REG);
	put_be32(b, NFTA_CT_KEY, NFT_CT_STATE);
	expr_end(b, e, d);

	e = expr_begin(b, "bitwise", &d);
	put_be32(b, NFTA_BITWISE_SREG, REG);
	put_be32(b, NFTA_BITWISE_DREG, REG);
	put_be32(b, NFTA_BITWISE_LEN, sizeof(uint32_t));
	put_data(b, NFTA_BITWISE_MASK, &mask, sizeof(mask));
	put_data(b, NFTA_BITWISE_XOR, &zero, sizeof(zero));
	expr_end(b, e, d);

	cmp(b, NFT_CMP_NEQ, &zero, sizeof(zero));

	e = expr_begin(b, "meta", &d);
	put_be32(b, NFTA_META_DREG, REG);
	put_be32(b, NFTA_META_KEY, NFT_META_L4PROTO);
	expr_end(b, e, d);

	cmp(b, NFT_CMP_EQ, &proto, sizeof(proto));

	e = expr_begin(b, "flow_offload", &d);
	put_str(b, NFTA_FLOW_TABLE_NAME, ft);
	expr_end(b, e, d);

	nest_end(b, list);
	msg_end(b, m);
}

static int valid_name(const char *what, const char *s, size_t max)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= max) {
		fprintf(stderr, "flowtable-load: %s '%s': 1-%zu characters expected\n", what, s,
			max - 1);
		return 0;
	}
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.')) {
			fprintf(stderr, "flowtable-load: %s '%s': letters, digits, '_', '-', '.' only\n",
				what, s);
			return 0;
		}
	}
	return 1;
}

static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);

	if (fd < 0) {
		fprintf(stderr, "flowtable-load: netlink socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "flowtable-load: netlink bind: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static const char *msg_name(uint32_t seq, const char *const *names, uint32_t first, uint32_t n)
{
	return seq >= first && seq < first + n ? names[seq - first] : "?";
}

/*
 * Sends the batch and reads one acknowledgement per message (each carries
 * NLM_F_ACK); the first error ends the transaction (the kernel aborts it
 * whole: nothing is half-loaded).
 */
static int transact(struct buf *b, uint32_t first, uint32_t n, const char *const *names)
{
	static unsigned char rx[BUF_SIZE];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	uint32_t acked = 0;
	int fd = nl_open(), rc = 0;

	if (fd < 0)
		return 1;
	if (sendto(fd, b->data, b->len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		fprintf(stderr, "flowtable-load: send: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	while (acked < n && rc == 0) {
		ssize_t len = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			fprintf(stderr, "flowtable-load: no answer from nf_tables (%s): is "
					"CONFIG_NF_TABLES in the kernel?\n", strerror(errno));
			rc = 1;
			break;
		}
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *err = NLMSG_DATA(h);

				if (err->error != 0) {
					const char *what = msg_name(h->nlmsg_seq, names, first, n);

					fprintf(stderr, "flowtable-load: the kernel refused %s: %s%s\n",
						what, strerror(-err->error),
						/* nf_tables answers ENOENT for a flowtable when no
						 * flowtable type is registered
						 * (net/netfilter/nf_tables_api.c:
						 * nft_flowtable_type_get), as nft shows too */
						(-err->error == ENOENT && strcmp(what, "the flowtable") == 0)
							? " (a kernel without CONFIG_NF_FLOW_TABLE and "
							  "CONFIG_NF_FLOW_TABLE_INET?)" : "");
					rc = 1;
					break;
				}
				acked++;
			}
		}
	}
	close(fd);
	return rc;
}

static int cmd_add(int argc, char **argv)
{
	static const char *const names[] = {
		"the table (create)", "the table (delete)", "the table",
		"the flowtable", "the forward chain", "the tcp rule", "the udp rule",
	};
	static struct buf b;
	const char *table = argv[0], *ft = argv[1];
	uint32_t seq = 1, first;
	size_t m, hook, devs;
	int i;

	if (!valid_name("table", table, 256) || !valid_name("flowtable", ft, 256))
		return 2;
	for (i = 2; i < argc; i++)
		if (!valid_name("device", argv[i], IFNAMSIZ))
			return 2;

	m = msg_begin(&b, NFNL_MSG_BATCH_BEGIN, 0, NFPROTO_UNSPEC, NFNL_SUBSYS_NFTABLES, seq++);
	msg_end(&b, m);
	first = seq;

	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_ACK,
		      NFPROTO_INET, 0, seq++);
	put_str(&b, NFTA_TABLE_NAME, table);
	msg_end(&b, m);
	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_DELTABLE, NLM_F_ACK, NFPROTO_INET, 0,
		      seq++);
	put_str(&b, NFTA_TABLE_NAME, table);
	msg_end(&b, m);
	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWTABLE, NLM_F_CREATE | NLM_F_ACK,
		      NFPROTO_INET, 0, seq++);
	put_str(&b, NFTA_TABLE_NAME, table);
	msg_end(&b, m);

	/* flowtable FT { hook ingress priority filter; devices = { ... } } */
	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWFLOWTABLE,
		      NLM_F_CREATE | NLM_F_ACK, NFPROTO_INET, 0, seq++);
	put_str(&b, NFTA_FLOWTABLE_TABLE, table);
	put_str(&b, NFTA_FLOWTABLE_NAME, ft);
	hook = nest_begin(&b, NFTA_FLOWTABLE_HOOK);
	put_be32(&b, NFTA_FLOWTABLE_HOOK_NUM, NF_NETDEV_INGRESS);
	put_be32(&b, NFTA_FLOWTABLE_HOOK_PRIORITY, 0); /* "filter" = NF_IP_PRI_FILTER */
	devs = nest_begin(&b, NFTA_FLOWTABLE_HOOK_DEVS);
	for (i = 2; i < argc; i++)
		put_str(&b, NFTA_DEVICE_NAME, argv[i]);
	nest_end(&b, devs);
	nest_end(&b, hook);
	msg_end(&b, m);

	/* chain forward { type filter hook forward priority filter; policy accept; } */
	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWCHAIN, NLM_F_CREATE | NLM_F_ACK,
		      NFPROTO_INET, 0, seq++);
	put_str(&b, NFTA_CHAIN_TABLE, table);
	put_str(&b, NFTA_CHAIN_NAME, "forward");
	hook = nest_begin(&b, NFTA_CHAIN_HOOK);
	put_be32(&b, NFTA_HOOK_HOOKNUM, NF_INET_FORWARD);
	put_be32(&b, NFTA_HOOK_PRIORITY, 0);
	nest_end(&b, hook);
	put_be32(&b, NFTA_CHAIN_POLICY, NF_ACCEPT);
	put_str(&b, NFTA_CHAIN_TYPE, "filter");
	msg_end(&b, m);

	rule(&b, seq++, table, ft, IPPROTO_TCP);
	rule(&b, seq++, table, ft, IPPROTO_UDP);

	m = msg_begin(&b, NFNL_MSG_BATCH_END, 0, NFPROTO_UNSPEC, NFNL_SUBSYS_NFTABLES, seq);
	msg_end(&b, m);
	if (b.overflow) {
		fprintf(stderr, "flowtable-load: too many devices for one message\n");
		return 2;
	}
	return transact(&b, first, seq - first, names);
}

static int cmd_delete(const char *table)
{
	static const char *const names[] = { "the table (delete)" };
	static struct buf b;
	size_t m;

	if (!valid_name("table", table, 256))
		return 2;
	m = msg_begin(&b, NFNL_MSG_BATCH_BEGIN, 0, NFPROTO_UNSPEC, NFNL_SUBSYS_NFTABLES, 1);
	msg_end(&b, m);
	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_DELTABLE, NLM_F_ACK, NFPROTO_INET, 0,
		      2);
	put_str(&b, NFTA_TABLE_NAME, table);
	msg_end(&b, m);
	m = msg_begin(&b, NFNL_MSG_BATCH_END, 0, NFPROTO_UNSPEC, NFNL_SUBSYS_NFTABLES, 3);
	msg_end(&b, m);
	return transact(&b, 2, 1, names);
}

static const char *family_name(uint8_t f)
{
	switch (f) {
	case NFPROTO_INET: return "inet";
	case NFPROTO_IPV4: return "ip";
	case NFPROTO_IPV6: return "ip6";
	case NFPROTO_NETDEV: return "netdev";
	case NFPROTO_BRIDGE: return "bridge";
	case NFPROTO_ARP: return "arp";
	default: return "?";
	}
}

/* Prints the attribute's string if it is one (NUL-terminated in its length). */
static void print_str(const struct nlattr *a)
{
	const char *s = (const char *)a + NLA_HDRLEN;
	size_t n = a->nla_len - NLA_HDRLEN;

	if (n > 0 && s[n - 1] == '\0')
		printf("%s", s);
	else
		printf("?");
}

static uint32_t get_be32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return ntohl(v);
}

#define ATTR_OK(a, rem) ((rem) >= (int)sizeof(struct nlattr) && (a)->nla_len >= sizeof(struct nlattr) && (a)->nla_len <= (rem))
#define ATTR_NEXT(a, rem) ((rem) -= NLA_ALIGN((a)->nla_len), (struct nlattr *)((char *)(a) + NLA_ALIGN((a)->nla_len)))
#define ATTR_TYPE(a) ((a)->nla_type & NLA_TYPE_MASK)

static void print_flowtable(const struct nlmsghdr *h)
{
	const struct nfgenmsg *g = NLMSG_DATA(h);
	const struct nlattr *a, *table = NULL, *name = NULL, *hook = NULL, *use = NULL;
	const struct nlattr *x, *devs = NULL, *num = NULL, *prio = NULL;
	int rem = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*g));

	for (a = (const struct nlattr *)((const char *)g + NLMSG_ALIGN(sizeof(*g))); ATTR_OK(a, rem);
	     a = ATTR_NEXT(a, rem)) {
		switch (ATTR_TYPE(a)) {
		case NFTA_FLOWTABLE_TABLE: table = a; break;
		case NFTA_FLOWTABLE_NAME: name = a; break;
		case NFTA_FLOWTABLE_HOOK: hook = a; break;
		case NFTA_FLOWTABLE_USE: use = a; break;
		}
	}
	if (!table || !name)
		return;
	printf("flowtable %s ", family_name(g->nfgen_family));
	print_str(table);
	printf(" ");
	print_str(name);
	if (hook) {
		rem = hook->nla_len - NLA_HDRLEN;
		for (x = (const struct nlattr *)((const char *)hook + NLA_HDRLEN); ATTR_OK(x, rem);
		     x = ATTR_NEXT(x, rem)) {
			switch (ATTR_TYPE(x)) {
			case NFTA_FLOWTABLE_HOOK_NUM: num = x; break;
			case NFTA_FLOWTABLE_HOOK_PRIORITY: prio = x; break;
			case NFTA_FLOWTABLE_HOOK_DEVS: devs = x; break;
			}
		}
	}
	if (num)
		printf(" hook %s", get_be32(num) == NF_NETDEV_INGRESS ? "ingress" : "?");
	if (prio)
		printf(" priority %d", (int32_t)get_be32(prio));
	if (use)
		printf(" use %u", get_be32(use));
	printf(" devices");
	if (devs) {
		rem = devs->nla_len - NLA_HDRLEN;
		for (x = (const struct nlattr *)((const char *)devs + NLA_HDRLEN); ATTR_OK(x, rem);
		     x = ATTR_NEXT(x, rem)) {
			printf(" ");
			print_str(x);
		}
	}
	printf("\n");
}

static int cmd_list(void)
{
	static struct buf b;
	static unsigned char rx[BUF_SIZE];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	size_t m;
	int fd = nl_open(), done = 0;

	if (fd < 0)
		return 1;
	m = msg_begin(&b, (NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_GETFLOWTABLE, NLM_F_DUMP,
		      NFPROTO_UNSPEC, 0, 1);
	msg_end(&b, m);
	if (sendto(fd, b.data, b.len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		fprintf(stderr, "flowtable-load: send: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	while (!done) {
		ssize_t len = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			fprintf(stderr, "flowtable-load: dump: %s\n", strerror(errno));
			close(fd);
			return 1;
		}
		for (h = (struct nlmsghdr *)rx; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *err = NLMSG_DATA(h);

				fprintf(stderr, "flowtable-load: dump refused: %s\n",
					strerror(-err->error));
				close(fd);
				return 1;
			}
			if (h->nlmsg_type == ((NFNL_SUBSYS_NFTABLES << 8) | NFT_MSG_NEWFLOWTABLE))
				print_flowtable(h);
		}
	}
	close(fd);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: flowtable-load add TABLE FLOWTABLE DEV... | list | "
			"delete TABLE\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "add") == 0)
		return cmd_add(argc - 2, argv + 2);
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return cmd_list();
	if (argc == 3 && strcmp(argv[1], "delete") == 0)
		return cmd_delete(argv[2]);
	return usage();
}
