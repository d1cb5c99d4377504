// A collection view's API speaks TesseraDiff (snapshots, update items) and
// TesseraLayout (layouts, geometry), so `import TesseraView` brings both in.
@_exported public import TesseraDiff
@_exported public import TesseraLayout
