// Package adbd is the device side of the adb protocol: a TCP server that the
// real adb server attaches to with `adb connect`, exactly as it would to a
// phone's adbd over Wi-Fi. It speaks the transport protocol (CNXN, OPEN,
// OKAY, WRTE, CLSE with the flow control of protocol version 0x01000001, no
// AUTH) and the services the runtime uses: shell: (v1 raw and shell,v2
// framing with exit codes and separate stderr), exec: (binary-safe stdout)
// and sync: (stat, list, push, pull). What the commands do is not its
// business: every stream becomes a call on a Handler, the simulated Android
// implemented by internal/sim/android.
//
// Concurrency model: one reader goroutine per connection dispatches packets,
// one writer goroutine per connection serializes them onto the socket through
// a buffered writer, and every stream owns a pump goroutine that sends its
// output one WRTE at a time, waiting for the host's OKAY in between.
//
// Ordering: sync: requests execute on the reader goroutine itself, in packet
// order, and an OPEN that arrives while a push is between SEND and DONE is
// answered only after the DONE (or after a bounded wait). The adb server
// forwards each client socket independently, so without this a client that
// closes a push without waiting for its OKAY (goadb does) and opens its next
// stream could find the file not yet written.
package adbd
