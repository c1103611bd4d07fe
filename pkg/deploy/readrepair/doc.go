// Package readrepair mends what a refresh's read got wrong in a stack's state, before an
// operation trusts it: entries the read dropped that the cloud still lists (DroppedByRead,
// PutBackEntries, a *ReadFailedError when they cannot be put back) and list inputs the provider
// read back in another order (KeepListInputs). It needs no Deployer: pkg/deploy's read guard
// (readguard.go) calls it around each refresh.
package readrepair
