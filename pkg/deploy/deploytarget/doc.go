// Package deploytarget is what a deployment aims at, below the operations of pkg/deploy: a
// Target (one manifest's stack input, its kind's program and effects, and the stack it deploys
// to), read from files or from text (Files, Read) with the checks across manifests (regions,
// sandbox), and what a target's stack last recorded of it (the deployed manifest, its outputs,
// the resources it holds, a retarget).
package deploytarget
