# An LSTM cell stepped from Python, 128 steps, batch 8: a launch per op.
import torch, torch.nn as nn
def build():
    cell = nn.LSTMCell(512, 512).cuda()
    xs = torch.randn(128, 8, 512).cuda()
    def step():
        h = torch.zeros(8, 512, device="cuda"); c = torch.zeros(8, 512, device="cuda")
        for t in range(xs.shape[0]):
            h, c = cell(xs[t], (h, c))
        return h
    return step
