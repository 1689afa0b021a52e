//! Large zeroed arrays that the kernel may back with huge pages, and prefetches into
//! them.
//!
//! The endgame levels are hundreds of megabytes read at random, by the generator (each
//! board reads its children's values in lower levels) and by the search. With 4 KiB pages
//! nearly every such read also misses the TLB, and on a virtual machine a TLB miss walks
//! two page tables. Linux set to `transparent_hugepage=madvise` (the default of many
//! distributions, and of this project's machines) gives 2 MiB pages only to memory that
//! asks for them, before it is first touched.
//!
//! The gain was measured side by side with `scripts/paired.sh` (results/bench.md, "Huge
//! pages for the endgame table's levels").

/// A zeroed vector of `len` bytes whose whole 2 MiB-aligned pages are marked for huge
/// pages. The allocator maps large zeroed blocks fresh from the system without touching
/// them (`calloc`), so the advice comes before any page exists.
pub fn zeroed_bytes(len: usize) -> Vec<i8> {
    let v = vec![0i8; len];
    advise_huge(v.as_ptr().cast(), len);
    v
}

/// Ask for huge pages on the 2 MiB-aligned part of `ptr..ptr + len`. Only advice: where
/// the system has none, or refuses, the memory works the same with small pages.
fn advise_huge(ptr: *const u8, len: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + len) & !(HUGE - 1);
        if end > start {
            // SAFETY: `start..end` lies inside one live allocation of `len` bytes;
            // MADV_HUGEPAGE changes no byte of it and no mapping's permissions.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, len);
}

/// Ask the processor to start loading the cache line of `r`, so that a read of it a little
/// later does not wait for memory. The search reads its tables at random and on this
/// project's machines a read from memory costs 150 to 300 ns (results/bench.md, "Memory
/// latency").
#[inline]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it changes no state the program can see and
    // never faults, and `r` is a live reference anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (r as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
