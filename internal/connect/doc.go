// Package connect is how natsperf reaches a NATS server. It speaks the
// connection flags of the nats CLI (-s/--server, --context, --creds, --nkey,
// --user, --password, --token, --tlscert, --tlskey, --tlsca, --tlsfirst) and
// reads the same context files, so a benchmark can be pointed at whatever
// `nats` already talks to.
//
// # Precedence
//
// Resolve merges three sources; later ones win:
//
//  1. a nats CLI context, <config>/nats/context/NAME.json, where <config> is
//     $XDG_CONFIG_HOME or ~/.config. The context is the one named by
//     --context; without --context it is the one selected in
//     <config>/nats/context.txt, but only when neither -s/--server nor
//     NATS_URL is given (so credentials of a selected context are never sent
//     to a server the user named some other way). A named context that does
//     not exist is an error; no context.txt just means no context.
//  2. the NATS_URL environment variable, which replaces the context's url.
//  3. the explicit Settings fields (the flags). The server list and each TLS
//     field override one by one. Authentication is replaced as a whole: if
//     any of --user, --password, --token, --creds or --nkey is given, every
//     credential of the context is dropped, so a flag never gets mixed with
//     a different method from the context. --tlsfirst and TLSInsecure can
//     only switch TLS behaviour on, not turn off a context's tls_first.
//
// A context without a url means nats://127.0.0.1:4222, as in the nats CLI.
// When no source names a server, Resolve reports specified == false and the
// caller runs an embedded server instead.
//
// # Connecting
//
// Connect gives every server attempt (TCP dial, TLS and the NATS INFO/CONNECT
// handshake together) ConnectTimeout, default DefaultConnectTimeout, and
// honours ctx throughout; it never keeps retrying a failed initial connect.
// Its errors are one line, name the server, say why (refused, timed out, TLS,
// authorization, not a NATS server) and wrap the underlying error.
//
// # Secrets
//
// Resolved Settings carry passwords and tokens, possibly inside server URLs.
// Anything printed or saved must go through Settings.Redacted. Errors from
// this package never contain secrets.
package connect
