"""The papers privrl reproduces, one module each (tables, theorem checks, claims, the paper's
record): :mod:`.vietri2020`, :mod:`.garcelon2021`, :mod:`.bai_sdp_pe`, :mod:`.lu2026`, and
:mod:`.cross_paper` for claims that span them. :mod:`.registry` lists them and drives the
workflow; :mod:`.analysis` is what a table receives and returns; :mod:`.common` holds helpers.
"""
