// Package supervisor runs the Pulumi CLI under a supervisor: the executable that links this
// package, started again with Env set. Pulumi starts each plugin in a process group of its
// own, so that nothing clusterplane can signal reaches them all; a killed clusterplane (or a CLI
// killed at the end of a timeout) used to leave the DigitalOcean provider running for minutes,
// polling the API with the token in its environment. The supervisor is the reaper of everything
// the CLI starts (a child subreaper), learns of clusterplane's death (its parent-death signal) and,
// when the CLI ends or clusterplane does, kills whatever is left. Only Linux has both; elsewhere
// the CLI runs as before.
//
// It is a package of its own, importing only the standard library, because of what a start costs:
// Go runs a package's init once every package it imports has run its own, so this init, which
// becomes the supervisor, runs before the Pulumi SDK's and the cloud SDKs' packages do theirs. In
// clusterplane's autostack package, where it lived until 2026-11-27, it ran after them: each start
// cost about 0.13 s of CPU against 0.04 s now, paid at each of the many runs of the CLI one
// operation makes. autostack starts the CLI under it (supervised_linux.go).
package supervisor
