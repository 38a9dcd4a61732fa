/// Finishes a key's own precomputed hash with a dictionary's seed, for keys whose
/// `_rawHashValue(seed:)` returns it: Dictionary then runs no `Hasher` (a SipHash round and
/// finalization) on each lookup. The seed still varies the
/// bucket order from one dictionary to the next, which keeps copying one dictionary into
/// another linear; the multiply and fold spread the bits into the low ones buckets use.
@inlinable
public func seededHash(_ hash: Int, seed: Int) -> Int {
    var mixed = UInt64(UInt(bitPattern: hash ^ seed)) &* 0x9e37_79b9_7f4a_7c15
    mixed ^= mixed >> 32
    return Int(bitPattern: UInt(mixed))
}
