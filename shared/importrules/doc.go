// Package importrules holds no code: its test fails when a package imports
// what its layer must not. The pure packages (listed in the test) import no
// Google Cloud SDK and no gRPC, even indirectly; the arrows run one way, from
// the root package to the entry packages, dbparts, the functions, the wiring
// and shared/, and no shared package imports anything under functions/.
package importrules
