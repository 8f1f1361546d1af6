import math
import torch

def pe_table(n_pos, d, base=10000.0):
    pos = torch.arange(n_pos, dtype=torch.float64)[:, None]
    omega = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    pe = torch.zeros(n_pos, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * omega)
    pe[:, 1::2] = torch.cos(pos * omega)
    return pe

def omegas(d, base):
    return base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
