// Package fielddrift compares a target field by field with what the engine read and would do:
// drift (DriftOf, PutBack, Previewed: where the cloud differs from the manifest and whether an up
// can put it back), the disagreements an adoption leaves (Disagreements, AdoptionLeft), and the
// refused changes the engine did not carry out (NotReplacedByEngine, HeldByCloud, WithValues).
// It needs no Deployer: pkg/deploy's operations call it with a stack's result.
package fielddrift
