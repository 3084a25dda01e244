package observable

// The operators of view: rxgo implements them on its own observables, so each is applied
// to the source's rxgo observable (Source.Rx). Written out from rxgo.Observable (v2.5.0),
// one per method: a method a later rxgo adds fails the build at View.

import (
	"context"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/reactivex/rxgo/v2"
)

func (v view[S]) All(predicate rxgo.Predicate, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().All(predicate, opts...)
}

func (v view[S]) AverageFloat32(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageFloat32(opts...)
}

func (v view[S]) AverageFloat64(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageFloat64(opts...)
}

func (v view[S]) AverageInt(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageInt(opts...)
}

func (v view[S]) AverageInt8(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageInt8(opts...)
}

func (v view[S]) AverageInt16(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageInt16(opts...)
}

func (v view[S]) AverageInt32(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageInt32(opts...)
}

func (v view[S]) AverageInt64(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().AverageInt64(opts...)
}

func (v view[S]) BackOffRetry(backOffCfg backoff.BackOff, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().BackOffRetry(backOffCfg, opts...)
}

func (v view[S]) BufferWithCount(count int, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().BufferWithCount(count, opts...)
}

func (v view[S]) BufferWithTime(timespan rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().BufferWithTime(timespan, opts...)
}

func (v view[S]) BufferWithTimeOrCount(timespan rxgo.Duration, count int, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().BufferWithTimeOrCount(timespan, count, opts...)
}

func (v view[S]) Connect(ctx context.Context) (context.Context, rxgo.Disposable) {
	return v.s.Rx().Connect(ctx)
}

func (v view[S]) Contains(equal rxgo.Predicate, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().Contains(equal, opts...)
}

func (v view[S]) Count(opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().Count(opts...)
}

func (v view[S]) Debounce(timespan rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Debounce(timespan, opts...)
}

func (v view[S]) DefaultIfEmpty(defaultValue any, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().DefaultIfEmpty(defaultValue, opts...)
}

func (v view[S]) Distinct(apply rxgo.Func, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Distinct(apply, opts...)
}

func (v view[S]) DistinctUntilChanged(apply rxgo.Func, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().DistinctUntilChanged(apply, opts...)
}

func (v view[S]) DoOnCompleted(completedFunc rxgo.CompletedFunc, opts ...rxgo.Option) rxgo.Disposed {
	return v.s.Rx().DoOnCompleted(completedFunc, opts...)
}

func (v view[S]) DoOnError(errFunc rxgo.ErrFunc, opts ...rxgo.Option) rxgo.Disposed {
	return v.s.Rx().DoOnError(errFunc, opts...)
}

func (v view[S]) DoOnNext(nextFunc rxgo.NextFunc, opts ...rxgo.Option) rxgo.Disposed {
	return v.s.Rx().DoOnNext(nextFunc, opts...)
}

func (v view[S]) ElementAt(index uint, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().ElementAt(index, opts...)
}

func (v view[S]) Error(opts ...rxgo.Option) error {
	return v.s.Rx().Error(opts...)
}

func (v view[S]) Errors(opts ...rxgo.Option) []error {
	return v.s.Rx().Errors(opts...)
}

func (v view[S]) Filter(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Filter(apply, opts...)
}

func (v view[S]) Find(find rxgo.Predicate, opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().Find(find, opts...)
}

func (v view[S]) First(opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().First(opts...)
}

func (v view[S]) FirstOrDefault(defaultValue any, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().FirstOrDefault(defaultValue, opts...)
}

func (v view[S]) FlatMap(apply rxgo.ItemToObservable, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().FlatMap(apply, opts...)
}

func (v view[S]) ForEach(nextFunc rxgo.NextFunc, errFunc rxgo.ErrFunc, completedFunc rxgo.CompletedFunc, opts ...rxgo.Option) rxgo.Disposed {
	return v.s.Rx().ForEach(nextFunc, errFunc, completedFunc, opts...)
}

func (v view[S]) GroupBy(length int, distribution func(rxgo.Item) int, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().GroupBy(length, distribution, opts...)
}

func (v view[S]) GroupByDynamic(distribution func(rxgo.Item) string, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().GroupByDynamic(distribution, opts...)
}

func (v view[S]) IgnoreElements(opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().IgnoreElements(opts...)
}

func (v view[S]) Join(joiner rxgo.Func2, right rxgo.Observable, timeExtractor func(any) time.Time, window rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Join(joiner, right, timeExtractor, window, opts...)
}

func (v view[S]) Last(opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().Last(opts...)
}

func (v view[S]) LastOrDefault(defaultValue any, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().LastOrDefault(defaultValue, opts...)
}

func (v view[S]) Map(apply rxgo.Func, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Map(apply, opts...)
}

func (v view[S]) Marshal(marshaller rxgo.Marshaller, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Marshal(marshaller, opts...)
}

func (v view[S]) Max(comparator rxgo.Comparator, opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().Max(comparator, opts...)
}

func (v view[S]) Min(comparator rxgo.Comparator, opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().Min(comparator, opts...)
}

func (v view[S]) OnErrorResumeNext(resumeSequence rxgo.ErrorToObservable, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().OnErrorResumeNext(resumeSequence, opts...)
}

func (v view[S]) OnErrorReturn(resumeFunc rxgo.ErrorFunc, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().OnErrorReturn(resumeFunc, opts...)
}

func (v view[S]) OnErrorReturnItem(resume any, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().OnErrorReturnItem(resume, opts...)
}

func (v view[S]) Reduce(apply rxgo.Func2, opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().Reduce(apply, opts...)
}

func (v view[S]) Repeat(count int64, frequency rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Repeat(count, frequency, opts...)
}

func (v view[S]) Retry(count int, shouldRetry func(error) bool, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Retry(count, shouldRetry, opts...)
}

func (v view[S]) Run(opts ...rxgo.Option) rxgo.Disposed {
	return v.s.Rx().Run(opts...)
}

func (v view[S]) Sample(iterable rxgo.Iterable, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Sample(iterable, opts...)
}

func (v view[S]) Scan(apply rxgo.Func2, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Scan(apply, opts...)
}

func (v view[S]) SequenceEqual(iterable rxgo.Iterable, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().SequenceEqual(iterable, opts...)
}

func (v view[S]) Send(output chan<- rxgo.Item, opts ...rxgo.Option) {
	v.s.Rx().Send(output, opts...)
}

func (v view[S]) Serialize(from int, identifier func(any) int, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Serialize(from, identifier, opts...)
}

func (v view[S]) Skip(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Skip(nth, opts...)
}

func (v view[S]) SkipLast(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().SkipLast(nth, opts...)
}

func (v view[S]) SkipWhile(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().SkipWhile(apply, opts...)
}

func (v view[S]) StartWith(iterable rxgo.Iterable, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().StartWith(iterable, opts...)
}

func (v view[S]) SumFloat32(opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().SumFloat32(opts...)
}

func (v view[S]) SumFloat64(opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().SumFloat64(opts...)
}

func (v view[S]) SumInt64(opts ...rxgo.Option) rxgo.OptionalSingle {
	return v.s.Rx().SumInt64(opts...)
}

func (v view[S]) Take(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Take(nth, opts...)
}

func (v view[S]) TakeLast(nth uint, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().TakeLast(nth, opts...)
}

func (v view[S]) TakeUntil(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().TakeUntil(apply, opts...)
}

func (v view[S]) TakeWhile(apply rxgo.Predicate, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().TakeWhile(apply, opts...)
}

func (v view[S]) TimeInterval(opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().TimeInterval(opts...)
}

func (v view[S]) Timestamp(opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Timestamp(opts...)
}

func (v view[S]) ToMap(keySelector rxgo.Func, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().ToMap(keySelector, opts...)
}

func (v view[S]) ToMapWithValueSelector(keySelector rxgo.Func, valueSelector rxgo.Func, opts ...rxgo.Option) rxgo.Single {
	return v.s.Rx().ToMapWithValueSelector(keySelector, valueSelector, opts...)
}

func (v view[S]) ToSlice(initialCapacity int, opts ...rxgo.Option) ([]any, error) {
	return v.s.Rx().ToSlice(initialCapacity, opts...)
}

func (v view[S]) Unmarshal(unmarshaller rxgo.Unmarshaller, factory func() any, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().Unmarshal(unmarshaller, factory, opts...)
}

func (v view[S]) WindowWithCount(count int, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().WindowWithCount(count, opts...)
}

func (v view[S]) WindowWithTime(timespan rxgo.Duration, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().WindowWithTime(timespan, opts...)
}

func (v view[S]) WindowWithTimeOrCount(timespan rxgo.Duration, count int, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().WindowWithTimeOrCount(timespan, count, opts...)
}

func (v view[S]) ZipFromIterable(iterable rxgo.Iterable, zipper rxgo.Func2, opts ...rxgo.Option) rxgo.Observable {
	return v.s.Rx().ZipFromIterable(iterable, zipper, opts...)
}
