/*
 * rbdsnap_trim_test.c - the pool's snapshots queued for trimming, read from `osd dump`.
 * Description: rbdsnap reads a pool's removed-but-untrimmed snapshots from the osdmap's removed_snaps_queue
 *
 *	./rbdsnap_trim_test
 *
 * The oracle is hand-written `osd dump` JSON in the layout of Ceph's
 * OSDMap::dump (Octopus and later) and the counts summed here by hand: the
 * intervals' lengths of the asked pool's entry only, not another pool's,
 * not new_removed_snaps' (the next epoch's, listed after the queue); an
 * empty queue is 0, a dump without the list (before Octopus) -ENOTSUP, a
 * truncated one -EINVAL. rbdsnap_trim.c is compiled in. The live read is
 * t-rbdsnap-trim-wait's, against `ceph osd dump` and `ceph pg ls`.
 *
 * Exit 0 pass, 1 fail, 77 skip: tests/unit/check.h.
 */
#include <errno.h>

#include "check.h"

#ifdef CONFIG_RBD
#include "rbdsnap/rbdsnap_trim.c"

static const char dump[] =
	"{\"epoch\":41,\"pools\":[{\"pool\":2,\"pool_name\":\"rbd\",\"snap_seq\":30}],"
	"\"removed_snaps_queue\":[{\"pool\":1,\"snaps\":[{\"begin\":2,\"length\":1}]},"
	"{\"pool\":2,\"snaps\":[{\"begin\":4,\"length\":3},{\"begin\":9,\"length\":12}]}],"
	"\"new_removed_snaps\":[{\"pool\":2,\"snaps\":[{\"begin\":22,\"length\":5}]}],"
	"\"new_purged_snaps\":[]}";

int main(void)
{
	CHECK(rs_trim_parse(dump, 2) == 15, "pool 2: %ld, not 3 + 12", rs_trim_parse(dump, 2));
	CHECK(rs_trim_parse(dump, 1) == 1, "pool 1: %ld, not 1", rs_trim_parse(dump, 1));
	CHECK(rs_trim_parse(dump, 3) == 0, "pool 3 (not queued): %ld, not 0", rs_trim_parse(dump, 3));
	CHECK(rs_trim_parse("{\"removed_snaps_queue\":[],\"new_removed_snaps\":[{\"pool\":2,\"snaps\":"
			    "[{\"begin\":1,\"length\":4}]}]}", 2) == 0,
	      "an empty queue: not 0 (the next epoch's removals are not queued yet)");
	CHECK(rs_trim_parse("{\"epoch\":3,\"pools\":[]}", 2) == -ENOTSUP, "no removed_snaps_queue: not -ENOTSUP");
	CHECK(rs_trim_parse("{\"removed_snaps_queue\":[{\"pool\":2,\"snaps\":[{\"begin\":4,\"length\":3}", 2) ==
	      -EINVAL, "a truncated dump: not -EINVAL");
	return t_finish("rbdsnap_trim_test");
}
#else
int main(void)
{
	SKIP("configure found no librbd: rbdsnap is not built");
}
#endif
