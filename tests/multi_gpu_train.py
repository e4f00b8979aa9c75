"""A few training steps of a small causal transformer under torchrun on 2 GPUs, with DDP or FSDP,
attention by flashcore or by sdpa; rank 0 writes the per-step losses (tests/gpu_multi_device_test.py
compares the two). Same seeds, same data on every run."""

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

import flashcore


class Block(torch.nn.Module):
    def __init__(self, dim, heads, attn):
        super().__init__()
        self.heads, self.attn = heads, attn
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
        if self.attn == "flashcore":
            a = flashcore.attention(q, k, v, causal=True)
        else:
            a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               is_causal=True).transpose(1, 2)
        x = x + self.proj(a.reshape(b, s, d))
        return x + self.mlp(self.norm2(x))


class TinyLM(torch.nn.Module):
    def __init__(self, vocab=512, dim=512, heads=4, layers=2, attn="sdpa"):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.blocks = torch.nn.ModuleList(Block(dim, heads, attn) for _ in range(layers))
        self.head = torch.nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wrap", choices=["ddp", "fsdp"], required=True)
    ap.add_argument("--attn", choices=["flashcore", "sdpa"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=8)
    args = ap.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    torch.manual_seed(0)
    model = TinyLM(attn=args.attn).cuda().to(torch.bfloat16)
    if args.wrap == "ddp":
        model = torch.nn.parallel.DistributedDataParallel(model)
    else:
        from torch.distributed.fsdp import fully_shard
        for blk in model.blocks:
            fully_shard(blk)
        fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1234 + rank)
    losses = []
    for _ in range(args.steps):
        # A learnable sequence (next token = previous + 1 mod vocab, random starts).
        start = torch.randint(0, 512, (4, 1), generator=g)
        tokens = ((start + torch.arange(257)) % 512).cuda()
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, 512), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        avg = loss.detach().clone()
        dist.all_reduce(avg)
        losses.append(avg.item() / dist.get_world_size())
    if rank == 0:
        with open(args.out, "w") as f:
            f.write(" ".join("%.6f" % x for x in losses))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
