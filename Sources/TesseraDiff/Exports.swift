// IndexPath is part of TesseraDiff's API, so `import TesseraDiff` brings it
// in (and nothing else from Foundation): a program that uses Tessera needs
// no Foundation import of its own.
#if canImport(FoundationEssentials)
@_exported public import struct FoundationEssentials.IndexPath
#else
@_exported public import struct Foundation.IndexPath
#endif
