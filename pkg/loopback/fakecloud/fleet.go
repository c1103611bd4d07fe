package fakecloud

import "encoding/json"

// FleetCluster is one deployed cluster in a loopback cloud's state file, as tools/fleetgen reads
// it to write copies of it: what a copy rewrites, and the ids it must give each copy its own of.
type FleetCluster struct {
	// Name is the cluster's name, which each copy replaces with its own.
	Name string
	// JSON is the cluster as the state file holds it, less what the copies share unchanged.
	JSON json.RawMessage
	// IDs are the cluster's ids (its own, its pools', its nodes'), replaced wherever a string
	// holds one, here and in the stack's checkpoint.
	IDs []string
	// Numbers are ids that are numbers (a node's machine), replaced only as whole strings: a
	// short number may be part of another string.
	Numbers []string
	// Address is the cluster's public address, which each copy gets its own of; "" for none.
	Address string
}
