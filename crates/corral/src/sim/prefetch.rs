//! A hint to the processor to bring a value into the nearest cache before it is needed. The
//! event loop knows which packets the next events will touch (the next event of a lane) long
//! before it touches them; on large networks, packets in flight outgrow the caches and a
//! packet's load at each hop would otherwise wait on memory. A hint never changes results;
//! on targets without one it does nothing.

/// Starts loading the cache line holding the start of `value`.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and cannot fault; the pointer comes
    // from a live reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            value as *const T as *const i8,
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
