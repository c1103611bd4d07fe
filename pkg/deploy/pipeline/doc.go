// Package pipeline is the deploy pipeline the command and the service both call: Run reads the
// files of a Request into targets, checks them in a fixed order (references, policy, offers,
// guards), runs the fleet scan when the operation reads the cloud (fleetscan.go) and hands the
// targets to a Queue whose each stack gets one operation of package deploy's Deployer.
package pipeline
