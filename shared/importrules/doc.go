// Package importrules holds no code: its test states the layering of the
// module and fails when a package imports what its layer must not.
//
// The domain, the application service, the check chain, the content rules,
// the form registry, the proof of work, the key ring and the HTTP edge are
// pure: they import no Google Cloud SDK and no gRPC, directly or through
// another package. Only the adapters (the Firestore store, the Secret
// Manager key loader), the wiring and the root package do. A new pure
// package is protected by adding its path to the pure list in the test.
//
// The arrows run one way: the root package (the entry points) and the dev
// server import functions/wiring, the wiring imports the functions, each
// function imports shared packages only, and no shared package imports a
// function or the wiring.
package importrules
