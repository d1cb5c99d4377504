// A layout's API speaks TesseraDiff (index paths, `UpdateItem`), so
// `import TesseraLayout` brings it in too.
@_exported public import TesseraDiff
