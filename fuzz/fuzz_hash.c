/* Hashes: cf_casefold_hash is the hash of cf_casefold's bytes; the ext4
 * casefold dirhash is the plain dirhash of the folded bytes (raw bytes when
 * folding fails), and equals libext2fs's where libext2fs can hash. */
#include <ext2fs/ext2fs.h>

#include "../tests/unit/ext2fs_oracle.h"
#include "casefold_ext4.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char folded[16384];
	static int oracle_ok = -1;
	static const uint32_t seed[4] = { 1, 2, 3, 4 };
	struct fuzz_input in;
	uint32_t maj, min, rmaj, rmin;

	if (!fuzz_split(data, size, &in))
		return 0;
	int alg = data[1] >> 2 & 7;
	if (alg > 5)
		alg = 1;
	ssize_t n = cf_casefold(&in.enc, in.a, in.alen, folded, sizeof(folded));
	FUZZ_ASSERT(cf_ext4_name_hash(&in.enc, alg, seed, in.a, in.alen, &maj, &min) == 0, "dirhash");
	/* Linux hashes the folded bytes when they fit its 4,096-byte buffer
	 * with a NUL, the raw ones otherwise. */
	if (n >= 0 && n < 4096)
		cf_ext4_name_hash(NULL, alg, seed, folded, (size_t)n, &rmaj, &rmin);
	else
		cf_ext4_name_hash(NULL, alg, seed, in.a, in.alen, &rmaj, &rmin);
	FUZZ_ASSERT(maj == rmaj && min == rmin, "dirhash of folded bytes");
	if (n >= 0) {
		/* Where refolding is stable, the hash of the name is the hash
		 * of its folded bytes: it hashes the output, nothing else. */
		static char again[16384];
		uint64_t h1, h2;
		ssize_t m = cf_casefold(&in.enc, folded, (size_t)n, again, sizeof(again));
		FUZZ_ASSERT(cf_casefold_hash(&in.enc, in.a, in.alen, &h1) == 0, "hash");
		if (m == n && !memcmp(again, folded, (size_t)n))
			FUZZ_ASSERT(cf_casefold_hash(&in.enc, folded, (size_t)n, &h2) == 0 && h1 == h2,
				    "hash of the folded bytes");
	}
	if (oracle_ok < 0)
		oracle_ok = oracle_open() == 0;
	if (oracle_ok && is_kernel_encoding(&in.enc) && in.alen < 1024) {
		ext2_dirhash_t wmaj, wmin;
		if (!ext2fs_dirhash2(alg, in.a, (int)in.alen, (const void *)oracle, EXT4_CASEFOLD_FL,
				     seed, &wmaj, &wmin))
			FUZZ_ASSERT(wmaj == maj && wmin == min, "libext2fs dirhash");
	}
	return 0;
}
