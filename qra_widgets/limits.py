"""The documented limits, in one place for every layer (readers, the study model, the engine).

========================== ============================================================
:data:`MAX_FILE_BYTES`      20 MiB per file, checked before anything is parsed
:data:`MAX_UNPACKED_BYTES`  100 MiB unpacked from a .xlsx/.zip (the sum its zip directory
                            declares; :mod:`zipfile` refuses to inflate a member past it)
:data:`MAX_PACKING_RATIO`   100: a member that unpacks to over 100 times its packed size
                            (and to more than 1 MiB) is a zip bomb, not a spreadsheet
:data:`MAX_ROWS`            1,048,576 table rows (Excel's own sheet limit)
:data:`MAX_COLUMNS`         1,000 table columns
:data:`MAX_JSON_DEPTH`      64 nested JSON arrays/objects
:data:`MAX_INT_DIGITS`      20 digits in a JSON integer (2**64 has 20)
========================== ============================================================

"""

from __future__ import annotations

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_UNPACKED_BYTES = 100 * 1024 * 1024
MAX_PACKING_RATIO = 100
MAX_ROWS = 1_048_576
MAX_COLUMNS = 1_000
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 20
