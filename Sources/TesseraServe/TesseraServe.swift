// The live list of `tessera serve`: see TesseraServe.docc.
