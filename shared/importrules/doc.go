// Package importrules holds no code: its test states the layering of the
// module and fails when a package imports what its layer must not.
//
// The domain, the application service, the check chain, the content rules,
// the form registry, the proof of work, the key ring and the HTTP edge are
// pure: they import no Google Cloud SDK and no gRPC, directly or through
// another package. Only the adapters (the Firestore store, the Secret
// Manager key loader), the parts over the database, the Challenge
// function (which opens the HMAC keys), the entry packages and the root
// package do. A new pure package is protected by adding its path to the
// pure list in the test.
//
// The arrows run one way: the root package imports each function's entry
// package, an entry package its function, package dbparts and the wiring,
// dbparts the functions whose parts it uses, a function the wiring and
// shared packages, and no shared package imports anything under
// functions/.
package importrules
