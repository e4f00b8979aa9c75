# Session 33 call 7 (H200): call2.sh's sweep on the final build's bundle (kernels as 50facdc; the
# sanitizer test with its fourth feature variant, softcap alone, so that the non-causal
# instantiations run the unmasked packed-softcap kernels, whose mask pass on the packed pairs runs
# on the key tails), in 12 parts.
RSHARDS=8 MSHARDS=4 LIMIT=330 bash "$(dirname "$0")/call2.sh"
