package deploytarget

// ManifestReads is how many recorded manifests were read so far (deployedInput).
func ManifestReads() int64 { return reads.Load() }
