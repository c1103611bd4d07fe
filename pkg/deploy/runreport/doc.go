// Package runreport is what one fleet command did to every stack, as data for machines: the
// Report of -o json and -o yaml (one StackReport a stack, its schema report.schema.json), the rows
// --report-file writes (reportfile.schema.json), and the exit code the outcomes give. It reads
// outcomes and needs no Deployer; pkg/deploy/render draws the same outcomes for people.
package runreport
