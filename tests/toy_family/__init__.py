"""A toy fill method, for the method contract test: every hole pixel copies its nearest known pixel.

The test copies this folder into ``inpaint/methods/toy/`` of a copy of the package and adds one
line to the registry: that is all a new method family needs.
"""
