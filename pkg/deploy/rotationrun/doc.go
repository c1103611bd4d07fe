// Package rotationrun holds what running a pool rotation on a stack needs besides the Deployer:
// which rotations up carries out for a kind and which it refuses (RotationError), the record of
// a rotation under way that up keeps in the stack's outputs (RotationRecord), the stack edits a
// rotation makes (PointPoolAt, ClearRotation) and the adapters pkg/change/rotation's phase
// machine asks for (RotationNodes, Selecting). pkg/deploy's rotate.go runs the rotation with them;
// pkg/change/rotation decides its steps.
package rotationrun
