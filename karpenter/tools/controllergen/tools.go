//go:build tools

// Package controllergen pins controller-gen, which writes the NodeClasses' deepcopy code and CRD
// YAML (make karpenter-generate). It is a module of its own so that neither clusterplane's nor
// the provider's module carries controller-tools and its dependencies.
package controllergen

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
